// The batch fold without Redis: stream order, redeliveries, creation, terminal rejections and poison events.
import { describe, expect, it } from "vitest";
import type { ArchivedOutcome } from "../archive-read/archived-outcomes.js";
import { newOutcomeRecord } from "../outcomes/new-outcome.js";
import { DEFAULT_OUTCOME_CAPS } from "../outcomes/outcome-caps.js";
import { emptyTally } from "../outcomes/charge.js";
import type { DeadLetterRecord } from "../outcomes/dead-letter.js";
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import { terminalRejection, type TerminalRejection } from "../outcomes/terminal-rejection.js";
import { packEnvelope, type EventEnvelope } from "../streams/event-envelope.js";
import { foldBatch, type FoldWrites, type OutcomeCreator } from "./batch-fold.js";
import { EMPTY_MODEL } from "../scores/cohort-model.js";
import { BatchScoring } from "./batch-scoring.js";
import { DeliveryAttempts } from "./delivery-attempts.js";
import type { DecodedEntry } from "./shard-entries.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

function outcome(key: string, condition: string, overrides: Partial<OutcomeRecord> = {}): OutcomeRecord {
  const record = newOutcomeRecord({
    accountId: "acct",
    key,
    origin: { kind: "task", taskKey: "t" },
    goal: null,
    condition,
    settlementPeriodMs: null,
    settlesAt: null,
    at: T0,
  });
  return { ...record, ...overrides };
}

function agentOutcome(key: string): OutcomeRecord {
  return outcome(key, "done", {
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
  });
}

function ev(outcomeKey: string, action: string, extra: Partial<EventEnvelope> = {}): EventEnvelope {
  return { accountId: "acct", outcomeKey, variant: "A", action, receivedAt: T0 + 1, ...extra };
}

function entry(id: string, ...events: EventEnvelope[]): DecodedEntry {
  return {
    id,
    size: events.length,
    events: events.map((event, index) => ({
      index,
      event,
      ref: outcomeRef(event.accountId, event.outcomeKey),
      bytes: Buffer.from(`${id}/${index}`),
    })),
  };
}

/** An entry whose events carry their packed envelopes, as the ingress writes them (the caps read their size). */
function packedEntry(id: string, ...events: EventEnvelope[]): DecodedEntry {
  return {
    id,
    size: events.length,
    events: events.map((event, index) => ({
      index,
      event,
      ref: outcomeRef(event.accountId, event.outcomeKey),
      bytes: packEnvelope(event),
    })),
  };
}

/** Records every write in order, as the actor's commit would receive them. */
function recorder(): FoldWrites & { ops: string[]; letters: DeadLetterRecord[] } {
  const ops: string[] = [];
  const letters: DeadLetterRecord[] = [];
  return {
    ops,
    letters,
    ack: (id) => ops.push(`ack ${id}`),
    log: (ref, event, bytes) => ops.push(`log ${event.outcomeKey} ${bytes.toString()}`),
    billable: (event, customer) => ops.push(`billable ${event.outcomeKey} ${customer}`),
    deadLetter: (letter) => {
      letters.push(letter);
      ops.push(`dead-letter ${letter.code} ${letter.source}`);
    },
    orphan: (event) => ops.push(`orphan ${event.outcomeKey}`),
    charge: (record, charge) => ops.push(`charge ${record.key} ${charge.amount}`),
  };
}

const NONE_ARCHIVED = new Map<string, ArchivedOutcome>();

const noCreation: OutcomeCreator = {
  prefetch: () => {},
  create: () => Promise.reject(new Error("no creation expected")),
};

function recordsOf(...records: OutcomeRecord[]): Map<string, OutcomeRecord> {
  return new Map(records.map((r) => [outcomeRef(r.accountId, r.key), r]));
}

describe("foldBatch", () => {
  it("applies events in stream order, logs each once and acknowledges every entry", async () => {
    const writes = recorder();
    const records = recordsOf(outcome("o", "a AND b"));
    const result = await foldBatch({
      entries: [entry("1-0", ev("o", "a"), ev("o", "b")), entry("2-0", ev("o", "c"))],
      records,
      archived: NONE_ARCHIVED,
      creator: noCreation,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops).toEqual([
      "ack 1-0",
      "log o 1-0/0",
      "log o 1-0/1",
      "ack 2-0",
      "dead-letter OUTCOME_NOT_OPEN 2-0/0",
    ]);
    expect(result.ok && [...result.changed.keys()]).toEqual([outcomeRef("acct", "o")]);
    expect(result.ok && result.events).toBe(3);
    expect(records.get(outcomeRef("acct", "o"))?.status).toBe("CONFIRMED");
    // The rejected event leaves the snapshot as it was: it is dead-lettered in the same commit as its ack.
    expect(records.get(outcomeRef("acct", "o"))?.lastEntryId).toBe("1-0");
  });

  it("skips a redelivered entry its outcome already applied, and still acknowledges it", async () => {
    const writes = recorder();
    const records = recordsOf(outcome("o", "never", { lastEntryId: "5-0" }));
    const result = await foldBatch({
      entries: [entry("5-0", ev("o", "a")), entry("6-0", ev("o", "b"))],
      records,
      archived: NONE_ARCHIVED,
      creator: noCreation,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops).toEqual(["ack 5-0", "ack 6-0", "log o 6-0/0"]);
    expect(result.ok && result.changed.get(outcomeRef("acct", "o"))?.record.observations).toHaveProperty("b");
    expect(records.get(outcomeRef("acct", "o"))?.observations).not.toHaveProperty("a");
  });

  it("trains its cohort with applied events and verdicts only: a redelivered or rejected event teaches nothing", async () => {
    const scoring = new BatchScoring(() => EMPTY_MODEL);
    const records = recordsOf(outcome("o", "a", { lastEntryId: "5-0" }));
    await foldBatch({
      entries: [entry("5-0", ev("o", "x")), entry("6-0", ev("o", "a")), entry("7-0", ev("o", "late"))],
      records,
      archived: NONE_ARCHIVED,
      creator: noCreation,
      attempts: new DeliveryAttempts(3),
      writes: recorder(),
      scoring,
      caps: DEFAULT_OUTCOME_CAPS,
    });
    const [taught] = scoring.deltas;
    expect(taught?.cohort).toEqual({ accountId: "acct", kind: "task", key: "t" });
    // One outcome started with `a` and confirmed; neither the redelivered `x` nor the rejected `late` shows.
    expect(taught?.delta.asHash()).toMatchObject({ n: "1", "t:^>a": "1", "o:^": "1", s: "1", "fn:k/a": "1" });
    expect(Object.keys(taught?.delta.asHash() ?? {}).filter((f) => f.includes("x") || f.includes("late"))).toEqual([]);
    expect(records.get(outcomeRef("acct", "o"))?.scores.trajectory).toBe(1);
  });

  it("dead-letters a Variant A event whose outcome does not exist and lets its idempotency keys expire", async () => {
    const writes = recorder();
    const result = await foldBatch({
      entries: [entry("1-0", ev("missing", "a"))],
      records: new Map(),
      archived: NONE_ARCHIVED,
      creator: noCreation,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops).toEqual(["ack 1-0", "dead-letter OUTCOME_NOT_FOUND 1-0/0", "orphan missing"]);
    expect(writes.letters[0]).toMatchObject({ attempts: 1, message: "no outcome missing" });
    expect(result.ok && result.changed.size).toBe(0);
  });

  it("creates a Variant B outcome once per batch, counts its applied events as billable and charges its verdict", async () => {
    const writes = recorder();
    let created = 0;
    const creator: OutcomeCreator = {
      prefetch: () => {},
      create: (event) => {
        created++;
        return Promise.resolve(agentOutcome(event.outcomeKey));
      },
    };
    const b = (action: string): EventEnvelope => ev("k", action, { variant: "B", customerKey: "cust" });
    const records = new Map<string, OutcomeRecord>();
    const result = await foldBatch({
      entries: [entry("1-0", b("start")), entry("2-0", b("done"))],
      records,
      archived: NONE_ARCHIVED,
      creator,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(created).toBe(1);
    expect(writes.ops).toEqual([
      "ack 1-0",
      "log k 1-0/0",
      "billable k cust",
      "ack 2-0",
      "log k 2-0/0",
      "billable k cust",
      "charge k 100",
    ]);
    expect(result.ok && result.changed.get(outcomeRef("acct", "k"))).toMatchObject({ created: true });
    expect(records.has(outcomeRef("acct", "k"))).toBe(true);
  });

  it("dead-letters an event over a cap OUTCOME_TOO_LARGE and applies the batch's other events, of its outcome and others", async () => {
    const writes = recorder();
    const records = recordsOf(outcome("o", "a AND b"), outcome("p", "a"));
    const big = ev("o", "a", { properties: { value: "x".repeat(20_000) } });
    const result = await foldBatch({
      entries: [packedEntry("1-0", big, ev("o", "a"), ev("p", "a")), packedEntry("2-0", ev("o", "b"))],
      records,
      archived: NONE_ARCHIVED,
      creator: noCreation,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops.filter((op) => !op.startsWith("log"))).toEqual([
      "ack 1-0",
      "dead-letter OUTCOME_TOO_LARGE 1-0/0",
      "ack 2-0",
    ]);
    expect(writes.ops.filter((op) => op.startsWith("log")).map((op) => op.split(" ")[1])).toEqual(["o", "p", "o"]);
    expect(writes.letters[0]?.message).toContain("VERDICT_OUTCOME_MAX_VALUE_BYTES");
    expect(result.ok && result.changed.size).toBe(2);
    expect(records.get(outcomeRef("acct", "o"))).toMatchObject({
      status: "CONFIRMED",
      observations: { a: { count: 1, lastValue: null } },
    });
    expect(records.get(outcomeRef("acct", "p"))?.status).toBe("CONFIRMED");
  });

  it("creates nothing for a Variant B key whose first event is too large; the key's next event creates it", async () => {
    const writes = recorder();
    const creator: OutcomeCreator = {
      prefetch: () => {},
      create: (event) => Promise.resolve(agentOutcome(event.outcomeKey)),
    };
    const b = (properties?: Record<string, unknown>): EventEnvelope =>
      ev("k", "step", { variant: "B", customerKey: "cust", ...(properties && { properties }) });
    const records = new Map<string, OutcomeRecord>();
    const first = await foldBatch({
      entries: [packedEntry("1-0", b({ value: "x".repeat(20_000) }))],
      records,
      archived: NONE_ARCHIVED,
      creator,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops).toEqual(["ack 1-0", "orphan k", "dead-letter OUTCOME_TOO_LARGE 1-0/0"]);
    expect(first.ok && first.changed.size).toBe(0);
    expect(records.size).toBe(0);
    const second = await foldBatch({
      entries: [packedEntry("2-0", b({ value: 1 }))],
      records,
      archived: NONE_ARCHIVED,
      creator,
      attempts: new DeliveryAttempts(3),
      writes: recorder(),
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(second.ok && second.changed.get(outcomeRef("acct", "k"))).toMatchObject({ created: true });
  });

  it("dead-letters a Variant B event whose contract is refused with the creator's code", async () => {
    const writes = recorder();
    const refusal: TerminalRejection = terminalRejection("CUSTOMER_NOT_FOUND", "no customer nobody");
    const creator: OutcomeCreator = { prefetch: () => {}, create: () => Promise.resolve(refusal) };
    await foldBatch({
      entries: [entry("1-0", ev("k", "a", { variant: "B", customerKey: "nobody" }))],
      records: new Map(),
      archived: NONE_ARCHIVED,
      creator,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops).toEqual(["ack 1-0", "dead-letter CUSTOMER_NOT_FOUND 1-0/0", "orphan k"]);
  });

  it("never reopens an archived outcome: a duplicate is dropped, a new event dead-lettered, neither creates", async () => {
    const writes = recorder();
    const archived = new Map<string, ArchivedOutcome>([
      [outcomeRef("acct", "k"), { status: "CONFIRMED", idempotencyKeys: new Set(["sent-before"]) }],
    ]);
    const b = (action: string, idempotencyKey?: string): EventEnvelope =>
      ev("k", action, { variant: "B", customerKey: "cust", ...(idempotencyKey && { idempotencyKey }) });
    const records = new Map<string, OutcomeRecord>();
    const result = await foldBatch({
      entries: [entry("1-0", b("done", "sent-before")), entry("2-0", b("done", "new")), entry("3-0", b("done"))],
      records,
      archived,
      creator: noCreation,
      attempts: new DeliveryAttempts(3),
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(writes.ops).toEqual([
      "ack 1-0",
      "orphan k",
      "ack 2-0",
      "orphan k",
      "dead-letter OUTCOME_NOT_OPEN 2-0/0",
      "ack 3-0",
      "orphan k",
      "dead-letter OUTCOME_NOT_OPEN 3-0/0",
    ]);
    expect(writes.letters[0]?.message).toBe("outcome k is CONFIRMED");
    expect(result.ok && result.changed.size).toBe(0);
    expect(records.size).toBe(0);
  });

  it("stops at a thrown (retryable) failure and names its delivery; once attempts run out the event is set aside", async () => {
    const attempts = new DeliveryAttempts(2);
    const creator: OutcomeCreator = {
      prefetch: () => {},
      create: () => Promise.reject(new Error("records unreachable")),
    };
    const entries = [entry("1-0", ev("ok", "a"), ev("k", "a", { variant: "B", customerKey: "cust" }))];
    const fresh = (): Map<string, OutcomeRecord> => recordsOf(outcome("ok", "never"));

    for (let attempt = 1; attempt <= 2; attempt++) {
      const result = await foldBatch({
        entries,
        records: fresh(),
        archived: NONE_ARCHIVED,
        creator,
        attempts,
        writes: recorder(),
        scoring: new BatchScoring(() => EMPTY_MODEL),
        caps: DEFAULT_OUTCOME_CAPS,
      });
      expect(result).toMatchObject({ ok: false, entryId: "1-0", index: 1 });
      if (!result.ok) expect(attempts.recordFailure(`${result.entryId}/${result.index}`, result.error)).toBe(attempt);
    }
    const writes = recorder();
    const result = await foldBatch({
      entries,
      records: fresh(),
      archived: NONE_ARCHIVED,
      creator,
      attempts,
      writes,
      scoring: new BatchScoring(() => EMPTY_MODEL),
      caps: DEFAULT_OUTCOME_CAPS,
    });
    expect(result.ok).toBe(true);
    expect(writes.ops).toEqual(["ack 1-0", "log ok 1-0/0", "dead-letter PROCESSING_FAILED 1-0/1"]);
    expect(writes.letters[0]).toMatchObject({ attempts: 2, message: "records unreachable" });
  });
});
