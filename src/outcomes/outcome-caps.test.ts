// The outcome caps in the pure step: exactly at a cap the event applies, one byte (or action) over it is
// refused OUTCOME_TOO_LARGE with the outcome left as it was, and no sequence of events outgrows the snapshot cap.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { msgpack } from "../codec/msgpack.js";
import { EMPTY_MODEL } from "../scores/cohort-model.js";
import { ModelDelta } from "../scores/model-delta.js";
import { packEnvelope, type EventEnvelope } from "../streams/event-envelope.js";
import { emptyTally } from "./charge.js";
import { newOutcomeRecord } from "./new-outcome.js";
import { DEFAULT_OUTCOME_CAPS, scoreRoom, type OutcomeCaps } from "./outcome-caps.js";
import { packOutcome, unpackOutcome, type OutcomeRecord } from "./outcome-record.js";
import { scoreAppliedEvent } from "./outcome-scores.js";
import { applyEventToOutcome, type EventEffect } from "./outcome-step.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");
/** Caps far above anything here, for the caps a test does not look at. */
const WIDE: OutcomeCaps = {
  maxActions: 1000,
  maxValueBytes: 1 << 24,
  maxEventBytes: 1 << 24,
  maxSnapshotBytes: 1 << 26,
};

function taskOutcome(condition = "done AND review:score>=4"): OutcomeRecord {
  return newOutcomeRecord({
    accountId: "acct",
    key: "o",
    origin: { kind: "task", taskKey: "t" },
    goal: null,
    condition,
    settlementPeriodMs: null,
    settlesAt: null,
    at: T0,
  });
}

function agentOutcome(): OutcomeRecord {
  return {
    ...taskOutcome("done"),
    origin: {
      kind: "agent",
      agentKey: "agent",
      customerKey: "cust",
      rateCardKey: "card",
      currency: "USD",
      unitAmount: 100,
      attributionMethod: "last",
      attribution: emptyTally(),
    },
  };
}

/** An event at the outcome's own creation instant, so time passing changes nothing. */
function ev(action: string, properties?: Record<string, unknown>, extra: Partial<EventEnvelope> = {}): EventEnvelope {
  return {
    accountId: "acct",
    outcomeKey: "o",
    variant: "A",
    action,
    receivedAt: T0,
    ...(properties && { properties }),
    ...extra,
  };
}

let seq = 0;
function apply(record: OutcomeRecord, event: EventEnvelope, caps: Partial<OutcomeCaps>): EventEffect {
  return applyEventToOutcome(record, event, `${T0}-${++seq}`, {
    caps: { ...WIDE, ...caps },
    envelopeBytes: packEnvelope(event).length,
  });
}

/** Applies `event` and expects it refused OUTCOME_TOO_LARGE naming `setting`, with the outcome exactly as it was. */
function expectRefused(record: OutcomeRecord, event: EventEnvelope, caps: Partial<OutcomeCaps>, setting: string): void {
  const before = unpackOutcome(packOutcome(record));
  const effect = apply(record, event, caps);
  expect(effect).toMatchObject({ logged: false, rejection: { code: "OUTCOME_TOO_LARGE" } });
  expect(effect.rejection?.message).toContain(setting);
  expect(effect.charge).toBeUndefined();
  expect(record).toEqual(before);
}

const text = (bytes: number): string => "x".repeat(bytes);

describe("outcome caps", () => {
  it("takes new actions up to maxActions and refuses the next; a known action still applies", () => {
    const record = taskOutcome();
    expect(apply(record, ev("a"), { maxActions: 2 }).logged).toBe(true);
    expect(apply(record, ev("b"), { maxActions: 2 }).logged).toBe(true);
    expectRefused(record, ev("c"), { maxActions: 2 }, "VERDICT_OUTCOME_MAX_ACTIONS");
    expect(apply(record, ev("a"), { maxActions: 2 }).logged).toBe(true);
    expect(record.observations.a?.count).toBe(2);
  });

  it("takes a value of exactly maxValueBytes stored and refuses one byte more", () => {
    const value = text(300);
    const cap = msgpack.pack(value).length;
    const record = taskOutcome();
    expect(apply(record, ev("note", { value }), { maxValueBytes: cap }).logged).toBe(true);
    expect(record.observations.note?.lastValue).toBe(value);
    expectRefused(record, ev("note", { value: text(301) }), { maxValueBytes: cap }, "VERDICT_OUTCOME_MAX_VALUE_BYTES");
    expect(record.observations.note).toMatchObject({ count: 1, lastValue: value });
  });

  it("caps the value of a Variant B outcome's events the same way", () => {
    const value = text(1000);
    const cap = msgpack.pack(value).length;
    const record = agentOutcome();
    const b = (v: string): EventEnvelope => ev("step", { value: v }, { variant: "B", customerKey: "cust" });
    expect(apply(record, b(value), { maxValueBytes: cap }).logged).toBe(true);
    expectRefused(record, b(text(1001)), { maxValueBytes: cap }, "VERDICT_OUTCOME_MAX_VALUE_BYTES");
  });

  it("takes properties of exactly maxEventBytes stored and refuses one byte more, whatever their value", () => {
    const properties = { value: 1, note: text(500) };
    const cap = msgpack.pack(properties).length;
    const record = taskOutcome();
    expect(apply(record, ev("note", properties), { maxEventBytes: cap }).logged).toBe(true);
    expectRefused(
      record,
      ev("note", { value: 1, note: text(501) }),
      { maxEventBytes: cap },
      "VERDICT_OUTCOME_MAX_EVENT_BYTES",
    );
  });

  it("takes an event that leaves the snapshot, with room for its scores, exactly at maxSnapshotBytes and refuses one byte more", () => {
    const event = ev("review", { score: 5, value: text(2000) });
    const trial = taskOutcome();
    apply(trial, event, {});
    const cap = packOutcome(trial).length + scoreRoom(packEnvelope(event).length);

    const under = taskOutcome();
    expect(apply(under, event, { maxSnapshotBytes: cap }).logged).toBe(true);
    const over = taskOutcome();
    expectRefused(over, event, { maxSnapshotBytes: cap - 1 }, "VERDICT_OUTCOME_MAX_SNAPSHOT_BYTES");
    // The outcome still takes events that fit.
    expect(apply(over, ev("done"), { maxSnapshotBytes: cap - 1 }).logged).toBe(true);
  });

  it("refuses nothing by size when the outcome is already closed: a late event is OUTCOME_NOT_OPEN", () => {
    const record = taskOutcome("done");
    apply(record, ev("done"), {});
    expect(apply(record, ev("late", { value: text(100) }), { maxValueBytes: 10 }).rejection?.code).toBe(
      "OUTCOME_NOT_OPEN",
    );
  });

  it("keeps every snapshot within maxSnapshotBytes, scores included, whatever events arrive", () => {
    const property = fc.record({
      action: fc.constantFrom("a", "b", "review", "note", "x.y"),
      score: fc.double({ noNaN: true }),
      value: fc.oneof(fc.string({ maxLength: 400 }), fc.double(), fc.array(fc.double(), { maxLength: 40 })),
    });
    fc.assert(
      fc.property(
        fc.array(property, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1200, max: 6000 }),
        (events, maxSnapshotBytes) => {
          const record = taskOutcome('COUNT(a)>=3 AND review:score>=4 AND note MATCHES "ok" AND F(b)');
          let at = T0;
          for (const { action, score, value } of events) {
            const event = ev(action, { score, value }, { receivedAt: (at += 1000) });
            const effect = apply(record, event, { maxSnapshotBytes });
            if (effect.logged) scoreAppliedEvent(record, event, EMPTY_MODEL, new ModelDelta());
            // Packed as a copy: packing the record itself would reset the bound the next events build on.
            expect(packOutcome(structuredClone(record)).length).toBeLessThanOrEqual(maxSnapshotBytes);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("defaults to 256 actions, 16 KiB values, 256 KiB event properties and a 64 KiB snapshot", () => {
    expect(DEFAULT_OUTCOME_CAPS).toEqual({
      maxActions: 256,
      maxValueBytes: 16_384,
      maxEventBytes: 262_144,
      maxSnapshotBytes: 65_536,
    });
  });
});
