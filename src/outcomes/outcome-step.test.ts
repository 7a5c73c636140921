// The outcome's transitions without Redis: identity rules, verdict order, settlement, attribution and charges.
import { describe, expect, it } from "vitest";
import { newOutcomeRecord } from "./new-outcome.js";
import { packEnvelope, type EventEnvelope } from "../streams/event-envelope.js";
import { DEFAULT_OUTCOME_CAPS, type EventLimits } from "./outcome-caps.js";
import { emptyTally } from "./charge.js";
import type { AttributionMethod } from "../records/agent.js";
import type { OutcomeRecord } from "./outcome-record.js";
import { applyEventToOutcome, passTime } from "./outcome-step.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

function taskOutcome(condition: string, settlementPeriodMs: number | null = null): OutcomeRecord {
  const settlesAt = settlementPeriodMs === null ? null : T0 + settlementPeriodMs;
  return newOutcomeRecord({
    accountId: "acct",
    key: "o",
    origin: { kind: "task", taskKey: "t" },
    goal: null,
    condition,
    settlementPeriodMs,
    settlesAt,
    at: T0,
  });
}

function agentOutcome(
  condition: string,
  attributionMethod: AttributionMethod = "last",
  unitAmount = 250,
): OutcomeRecord {
  return {
    ...taskOutcome(condition),
    origin: {
      kind: "agent",
      agentKey: "agent",
      customerKey: "cust",
      rateCardKey: "card",
      currency: "USD",
      unitAmount,
      attributionMethod,
      attribution: emptyTally(),
    },
  };
}

let seq = 0;
/** An event, its entry id and its limits (the default caps, and its size packed as the ingress packs it). */
function event(action: string, at: number, extra: Partial<EventEnvelope> = {}): [EventEnvelope, string, EventLimits] {
  seq++;
  const envelope: EventEnvelope = {
    accountId: "acct",
    outcomeKey: "o",
    variant: "A",
    action,
    receivedAt: at,
    ...extra,
  };
  return [envelope, `${at}-${seq}`, { caps: DEFAULT_OUTCOME_CAPS, envelopeBytes: packEnvelope(envelope).length }];
}

const B = (agentKey?: string, customerKey = "cust"): Partial<EventEnvelope> => ({
  variant: "B",
  customerKey,
  ...(agentKey ? { agentKey } : {}),
});

describe("applyEventToOutcome", () => {
  it("counts observations and keeps the latest value of events that carried one", () => {
    const record = taskOutcome("never");
    applyEventToOutcome(record, ...event("a", T0 + 1, { properties: { value: 1 } }));
    applyEventToOutcome(record, ...event("a", T0 + 2));
    expect(record.observations.a).toEqual({ count: 2, hasValue: true, lastValue: 1, lastAt: T0 + 2 });
    applyEventToOutcome(record, ...event("a", T0 + 3, { properties: { value: null } }));
    expect(record.observations.a).toMatchObject({ count: 3, hasValue: true, lastValue: null });
  });

  it("confirms at the locking event and rejects later events as OUTCOME_NOT_OPEN", () => {
    const record = taskOutcome("done");
    expect(applyEventToOutcome(record, ...event("done", T0 + 5))).toMatchObject({ changed: true, logged: true });
    expect(record).toMatchObject({ status: "CONFIRMED", verdictAt: T0 + 5 });
    expect(applyEventToOutcome(record, ...event("late", T0 + 6)).rejection?.code).toBe("OUTCOME_NOT_OPEN");
    expect(record.observations.late).toBeUndefined();
  });

  it("makes a settlement due before an event first, then rejects the event", () => {
    const record = taskOutcome("NOT escalated", 1000);
    const effect = applyEventToOutcome(record, ...event("other", T0 + 5000));
    expect(effect.rejection?.code).toBe("OUTCOME_NOT_OPEN");
    expect(record).toMatchObject({ status: "CONFIRMED", verdictAt: T0 + 1000 });
  });

  it("moves settles_at with each event, or to the event's own deadline", () => {
    const record = taskOutcome("never", 60_000);
    applyEventToOutcome(record, ...event("a", T0 + 10));
    expect(record.settlesAt).toBe(T0 + 10 + 60_000);
    applyEventToOutcome(record, ...event("a", T0 + 20, { properties: { settles_at: "2026-01-02T00:00:00.000Z" } }));
    expect(record.settlesAt).toBe(Date.parse("2026-01-02T00:00:00.000Z"));
  });

  it("refuses Variant B events on a task outcome and on another customer's or agent's key", () => {
    expect(applyEventToOutcome(taskOutcome("never"), ...event("a", T0 + 1, B("agent"))).rejection?.code).toBe(
      "OUTCOME_IDENTITY_MISMATCH",
    );
    const record = agentOutcome("never");
    expect(applyEventToOutcome(record, ...event("a", T0 + 1, B("agent", "other"))).rejection?.code).toBe(
      "OUTCOME_IDENTITY_MISMATCH",
    );
    expect(applyEventToOutcome(record, ...event("a", T0 + 1, B("other-agent"))).rejection?.code).toBe(
      "OUTCOME_IDENTITY_MISMATCH",
    );
    expect(applyEventToOutcome(record, ...event("a", T0 + 1, B())).rejection).toBeUndefined();
    // Identity is checked before the open state.
    record.status = "CONFIRMED";
    expect(applyEventToOutcome(record, ...event("a", T0 + 2, B("x"))).rejection?.code).toBe(
      "OUTCOME_IDENTITY_MISMATCH",
    );
  });

  it("evaluates only properties.value for Variant B outcomes", () => {
    const record = agentOutcome("score>=4");
    applyEventToOutcome(record, ...event("score", T0 + 1, { ...B(), properties: { value: 5, other: 1 } }));
    expect(record.observations.score).toMatchObject({ count: 1, lastValue: 5 });
  });
});

describe("charges", () => {
  const sequence: unknown[] = [3, "7", null, 1.5, 10, undefined];
  const expected: Record<AttributionMethod, number> = { first: 3, last: 10, min: 1.5, max: 10, sum: 14.5 };

  for (const method of Object.keys(expected) as AttributionMethod[]) {
    it(`bills unit_amount x the ${method} numeric attribution, rounded half up`, () => {
      const record = agentOutcome("done", method, 250);
      sequence.forEach((attribution, i) =>
        applyEventToOutcome(record, ...event("step", T0 + 1 + i, { ...B(), properties: { attribution } })),
      );
      const effect = applyEventToOutcome(record, ...event("done", T0 + 100, B()));
      expect(effect.charge).toMatchObject({
        attribution: expected[method],
        amount: Math.floor(250 * expected[method] + 0.5),
        currency: "USD",
        unit_amount: 250,
      });
    });
  }

  it("attributes 1 when no event carried a numeric attribution, and counts the confirming event's", () => {
    const none = agentOutcome("done");
    expect(
      applyEventToOutcome(none, ...event("done", T0 + 1, { ...B(), properties: { attribution: "n/a" } })).charge,
    ).toMatchObject({ attribution: 1, amount: 250 });
    const confirming = agentOutcome("done", "sum", 3);
    expect(
      applyEventToOutcome(confirming, ...event("done", T0 + 1, { ...B(), properties: { attribution: 0.5 } })).charge,
    ).toMatchObject({ attribution: 0.5, amount: 2 });
  });

  it("never charges a FAILED outcome", () => {
    const record = agentOutcome("NOT escalated AND done");
    expect(applyEventToOutcome(record, ...event("escalated", T0 + 1, B())).charge).toBeUndefined();
    expect(record.status).toBe("FAILED");
  });

  it("charges a confirmation reached by settlement", () => {
    const record = agentOutcome("NOT escalated");
    record.settlesAt = T0 + 1000;
    const passed = passTime(record, T0 + 2000);
    expect(record.status).toBe("CONFIRMED");
    expect(passed.charge).toMatchObject({ amount: 250, confirmed_at: new Date(T0 + 1000).toISOString() });
  });
});

describe("passTime", () => {
  it("settles a deadline an event set in the past, at that event's instant (the state already holds it)", () => {
    const record = taskOutcome("NOT escalated");
    applyEventToOutcome(
      record,
      ...event("started", T0 + 5000, { properties: { settles_at: new Date(T0 + 1000).toISOString() } }),
    );
    expect(record.status).toBe("OPEN");
    passTime(record, record.clock);
    expect(record).toMatchObject({ status: "CONFIRMED", verdictAt: T0 + 5000 });
  });
});
