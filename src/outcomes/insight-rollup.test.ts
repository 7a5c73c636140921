// A commit's rollup delta: additions that interleave accounts, hours and groups land in the same cells as
// each made alone (the delta keeps the cells it last added to, and must not add to them for another).
import { describe, expect, it } from "vitest";
import { emptyTally } from "./charge.js";
import { HOUR_MS, RollupDelta } from "./insight-rollup.js";
import { newOutcomeRecord } from "./new-outcome.js";
import type { OutcomeRecord } from "./outcome-record.js";

const T0 = Date.parse("2026-01-01T10:00:00Z");

function agentOrigin(agentKey: string, customerKey: string): OutcomeRecord["origin"] {
  return {
    kind: "agent",
    agentKey,
    customerKey,
    rateCardKey: "r",
    currency: "EUR",
    unitAmount: 1,
    attributionMethod: "last",
    attribution: emptyTally(),
  };
}

function verdict(
  accountId: string,
  origin: OutcomeRecord["origin"],
  verdictAt: number,
  confirmed: boolean,
): OutcomeRecord {
  const record = newOutcomeRecord({
    accountId,
    key: `o${verdictAt}`,
    origin,
    goal: null,
    condition: "done",
    settlementPeriodMs: null,
    settlesAt: null,
    at: T0 - HOUR_MS,
  });
  return { ...record, status: confirmed ? "CONFIRMED" : "FAILED", verdictAt };
}

/** Every count of a delta as "account day hour field metric" to its value, sorted. */
function countsOf(deltas: RollupDelta[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const delta of deltas)
    for (const { accountId, day, cells } of delta)
      for (const { field, hourOfDay, counts: cellCounts } of cells.values())
        for (const [metric, n] of cellCounts) {
          const id = `${accountId} ${day} ${hourOfDay} ${field} ${metric}`;
          counts.set(id, (counts.get(id) ?? 0) + n);
        }
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

describe("RollupDelta", () => {
  it("counts interleaved accounts, hours and groups as each addition alone would", () => {
    const task = { kind: "task", taskKey: "t" } as const;
    const other = { kind: "task", taskKey: "u" } as const;
    const agent = agentOrigin("g", "c");
    const records = [
      verdict("a", task, T0, true),
      verdict("a", task, T0 + 1, true),
      verdict("b", task, T0 + 2, true),
      verdict("a", task, T0 + 3, false),
      verdict("a", other, T0 + 4, true),
      verdict("a", task, T0 + HOUR_MS, true),
      verdict("a", agent, T0 + HOUR_MS + 1, true),
      verdict("a", agentOrigin("g", "d"), T0 + HOUR_MS + 2, true),
      verdict("a", task, T0 + 5, true),
    ];
    const together = new RollupDelta();
    for (const record of records) together.verdict(record);
    const alone = records.map((record) => {
      const delta = new RollupDelta();
      delta.verdict(record);
      return delta;
    });
    expect(countsOf([together])).toEqual(countsOf(alone));
    expect(countsOf([together]).get(`a ${Date.parse("2026-01-01")} 10 t\u001ft c`)).toBe(3);
  });
});
