// Snapshots round-trip: what a worker packs is what a reader or the next owner unpacks, field for field.
import { describe, expect, it } from "vitest";
import { freshScoreState } from "../scores/score-state.js";
import { newOutcomeRecord } from "./new-outcome.js";
import { emptyTally } from "./charge.js";
import { packOutcome, unpackOutcome, type OutcomeRecord } from "./outcome-record.js";
import { DEFAULT_OUTCOME_CAPS } from "./outcome-caps.js";
import { applyEventToOutcome } from "./outcome-step.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");
/** The default caps, with an envelope size above any event here. */
const LIMITS = { caps: DEFAULT_OUTCOME_CAPS, envelopeBytes: 1024 };

function record(condition: string, origin: OutcomeRecord["origin"]): OutcomeRecord {
  return newOutcomeRecord({
    accountId: "acct_1",
    key: "order:1",
    origin,
    goal: "ship it",
    condition,
    settlementPeriodMs: 60_000,
    settlesAt: T0 + 60_000,
    at: T0,
  });
}

describe("outcome snapshot", () => {
  it("round-trips a task outcome with counts, facts (null kept apart from unset), memory and observations", () => {
    const r = record('COUNT(step)>=3 AND G(score>=0) AND F(review:score>=4) AND note MATCHES "ok" AND NOT escalated', {
      kind: "task",
      taskKey: "t",
    });
    applyEventToOutcome(
      r,
      {
        accountId: "acct_1",
        outcomeKey: "order:1",
        variant: "A",
        action: "step",
        properties: { value: null },
        receivedAt: T0 + 1,
      },
      `${T0 + 1}-0`,
      LIMITS,
    );
    applyEventToOutcome(
      r,
      {
        accountId: "acct_1",
        outcomeKey: "order:1",
        variant: "A",
        action: "score",
        properties: { value: 3.5 },
        receivedAt: T0 + 2,
      },
      `${T0 + 2}-0`,
      LIMITS,
    );
    applyEventToOutcome(
      r,
      {
        accountId: "acct_1",
        outcomeKey: "order:1",
        variant: "A",
        action: "note",
        properties: { value: "all ok", deep: { a: [1] } },
        receivedAt: T0 + 3,
      },
      `${T0 + 3}-7`,
      LIMITS,
    );
    expect(unpackOutcome(packOutcome(r))).toEqual(r);
  });

  it("round-trips an agent outcome with its attribution tally and a verdict", () => {
    const r = record("done", {
      kind: "agent",
      agentKey: "a",
      customerKey: "c",
      rateCardKey: "card",
      currency: "EUR",
      unitAmount: 250,
      attributionMethod: "sum",
      attribution: emptyTally(),
    });
    applyEventToOutcome(
      r,
      {
        accountId: "acct_1",
        outcomeKey: "order:1",
        variant: "B",
        customerKey: "c",
        action: "done",
        properties: { attribution: 2 },
        receivedAt: T0 + 5,
      },
      `${T0 + 5}-0`,
      LIMITS,
    );
    expect(r.status).toBe("CONFIRMED");
    expect(unpackOutcome(packOutcome(r))).toEqual(r);
  });

  it("round-trips scores, and reads a version 1 snapshot (before scores) as unscored", async () => {
    const r = record("x", { kind: "task", taskKey: "t" });
    r.scores = {
      trajectory: 0.25,
      anomaly: 0.9,
      novelty: null,
      cells: [3, 2, 104, 1],
      lastAction: "b",
      lastAt: T0 + 9,
      surprisal: 0.5,
      steps: 2,
    };
    expect(unpackOutcome(packOutcome(r))).toEqual(r);
    const { msgpack } = await import("../codec/msgpack.js");
    const v2 = msgpack.unpack(packOutcome(r)) as unknown[];
    const v1 = unpackOutcome(msgpack.pack([1, ...v2.slice(1, 15)]));
    expect(v1).toEqual({ ...r, scores: freshScoreState() });
  });

  it("refuses bytes that are not a snapshot", () => {
    expect(() => unpackOutcome(packOutcome(record("x", { kind: "task", taskKey: "t" })).subarray(1))).toThrow();
  });
});
