// Commit staging without Redis: which writes a batch's or a settle's commit carries, and which only with an archive.
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { newOutcomeRecord } from "../outcomes/new-outcome.js";
import type { DeadLetterRecord } from "../outcomes/dead-letter.js";
import { dueAtOf } from "../outcomes/due-time.js";
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import { Keys } from "../redis/keys.js";
import { EMPTY_MODEL } from "../scores/cohort-model.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { createActorMetrics } from "./actor-metrics.js";
import type { ChangedOutcome } from "./batch-fold.js";
import { BatchScoring } from "./batch-scoring.js";
import { RollupDelta } from "../outcomes/insight-rollup.js";
import { CommitStaging, type CommitOps } from "./commit-staging.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const keys = new Keys("t:");
const SHARD = 3;

/** Every staged operation as "<op> <first key or member>", in order. */
class Recorded implements CommitOps {
  readonly ops: string[] = [];
  readonly rollups = new RollupDelta();
  ack = (id: string): void => void this.ops.push(`ack ${id}`);
  log = (key: string): void => void this.ops.push(`log ${key}`);
  count = (key: string, field: string, by: number): void => void this.ops.push(`count ${key} ${field} ${by}`);
  append = (key: string): void => void this.ops.push(`append ${key}`);
  queueForArchive = (key: string): void => void this.ops.push(`queueForArchive ${key}`);
  index = (key: string, member: string): void => void this.ops.push(`index ${key} ${member}`);
  unindex = (key: string, member: string): void => void this.ops.push(`unindex ${key} ${member}`);
  outbox = (key: string): void => void this.ops.push(`outbox ${key}`);
  outboxVerdict = (key: string): void => void this.ops.push(`outboxVerdict ${key}`);
  expireOrphan = (key: string): void => void this.ops.push(`expireOrphan ${key}`);
  model = (key: string): void => void this.ops.push(`model ${key}`);
  create = (key: string): void => void this.ops.push(`create ${key}`);
  set = (key: string): void => void this.ops.push(`set ${key}`);
  zadd = (key: string, _score: number, member: string): void => void this.ops.push(`zadd ${key} ${member}`);
  due = (member: string, at: number | null): void => void this.ops.push(`due ${member} ${at}`);
}

function staging(archiving: boolean, deadLetterMaxEventBytes = 64 * 1024): CommitStaging {
  return new CommitStaging({
    keys,
    shard: SHARD,
    archiving,
    deadLetterMaxEventBytes,
    metrics: createActorMetrics(new Registry()),
  });
}

function outcome(key: string, settlesAt: number | null = null): OutcomeRecord {
  return newOutcomeRecord({
    accountId: "acct",
    key,
    origin: { kind: "task", taskKey: "t" },
    goal: null,
    condition: "done",
    settlementPeriodMs: null,
    settlesAt,
    at: T0,
  });
}

function changedOf(...changes: ChangedOutcome[]): Map<string, ChangedOutcome> {
  return new Map(changes.map((change) => [outcomeRef(change.record.accountId, change.record.key), change]));
}

const noScoring = (): BatchScoring => new BatchScoring(() => EMPTY_MODEL);

describe("CommitStaging.changes", () => {
  it("creates a new outcome with its listing entry, rewrites a known one, and writes the due index only when the due time moved", () => {
    const commit = new Recorded();
    const created = outcome("new", T0 + 5000);
    const unmoved = outcome("old", T0 + 7000);
    staging(false).changes(
      commit,
      changedOf(
        { record: created, created: true, openBefore: true },
        { record: unmoved, created: false, dueBefore: dueAtOf(unmoved), openBefore: true },
      ),
      noScoring(),
    );
    expect(commit.ops).toEqual([
      `create ${keys.outcome(SHARD, "acct", "new")}`,
      expect.stringMatching(new RegExp(`^index ${keys.outcomeIndex(SHARD, "acct")} `)),
      `due ${outcomeRef("acct", "new")} ${T0 + 5000}`,
      `set ${keys.outcome(SHARD, "acct", "old")}`,
    ]);
  });

  it("notifies a verdict in the same commit, and enters it in the settled index only with an archive", () => {
    const settled = (): ChangedOutcome => ({
      record: { ...outcome("o"), status: "FAILED" },
      created: false,
      dueBefore: null,
      openBefore: true,
    });
    const without = new Recorded();
    staging(false).changes(without, changedOf(settled()), noScoring());
    expect(without.ops).toEqual([
      `set ${keys.outcome(SHARD, "acct", "o")}`,
      `outboxVerdict ${keys.webhookOutbox(SHARD)}`,
    ]);
    const withArchive = new Recorded();
    staging(true).changes(withArchive, changedOf(settled()), noScoring());
    expect(withArchive.ops).toContain(`zadd ${keys.settled(SHARD)} ${outcomeRef("acct", "o")}`);
  });
});

describe("CommitStaging.foldWrites", () => {
  const event: EventEnvelope = {
    accountId: "acct",
    outcomeKey: "o",
    variant: "A",
    action: "a",
    receivedAt: T0,
    properties: { note: "x".repeat(500) },
  };
  const letter: DeadLetterRecord = { code: "OUTCOME_NOT_OPEN", message: "closed", event, attempts: 1, source: "1-0/0" };

  it("appends a dead letter, lists its account, notifies and counts it by code", () => {
    const commit = new Recorded();
    const deadLettered = new Map<string, number>();
    staging(true).foldWrites(commit, deadLettered, new Map()).deadLetter(letter);
    expect(commit.ops).toEqual([
      `append ${keys.deadLetters(SHARD, "acct")}`,
      `index ${keys.deadLetterAccounts(SHARD)} acct`,
      `outbox ${keys.webhookOutbox(SHARD)}`,
    ]);
    expect(deadLettered).toEqual(new Map([["OUTCOME_NOT_OPEN", 1]]));
  });

  it("queues the whole of a dead letter kept only in part for the archive, and without an archive does not", () => {
    const archived = new Recorded();
    staging(true, 100).foldWrites(archived, new Map(), new Map()).deadLetter(letter);
    expect(archived.ops[1]).toBe(`queueForArchive ${keys.deadLetterWholeEvents(SHARD)}`);
    const kept = new Recorded();
    staging(false, 100).foldWrites(kept, new Map(), new Map()).deadLetter(letter);
    expect(kept.ops.filter((op) => op.startsWith("queueForArchive"))).toEqual([]);
  });

  it("builds one event-log key per outcome and counts billable events per customer", () => {
    const commit = new Recorded();
    const writes = staging(false).foldWrites(commit, new Map(), new Map());
    writes.log(outcomeRef("acct", "o"), event, Buffer.from("e1"));
    writes.log(outcomeRef("acct", "o"), event, Buffer.from("e2"));
    writes.billable(event, "cust");
    expect(commit.ops).toEqual([
      `log ${keys.eventLog(SHARD, "acct", "o")}`,
      `log ${keys.eventLog(SHARD, "acct", "o")}`,
      `count ${keys.usage(SHARD, "acct")} cust 1`,
    ]);
  });

  it("expires an orphan's idempotency hash once per commit, and not for an event that claimed no key", () => {
    const commit = new Recorded();
    const writes = staging(false).foldWrites(commit, new Map(), new Map());
    writes.orphan(event);
    writes.orphan({ ...event, idempotencyKey: "k1" });
    writes.orphan({ ...event, idempotencyKey: "k2" });
    writes.orphan({ ...event, outcomeKey: "p", idempotencyKey: "k1" });
    expect(commit.ops).toEqual([
      `expireOrphan ${keys.idempotency(SHARD, "acct", "o")}`,
      `expireOrphan ${keys.idempotency(SHARD, "acct", "p")}`,
    ]);
  });
});

describe("CommitStaging.passTime", () => {
  it("makes the verdicts due by then, and takes gone or settled outcomes off the due index", () => {
    const commit = new Recorded();
    const due = outcome("due", T0 + 1000);
    const later = outcome("later", T0 + 60_000);
    const closed = { ...outcome("closed"), status: "CONFIRMED" as const };
    const records = new Map([due, later, closed].map((record) => [outcomeRef("acct", record.key), record]));
    const refs = ["due", "later", "closed", "gone"].map((key) => outcomeRef("acct", key));
    const changed = staging(false).passTime(commit, refs, records, T0 + 2000, noScoring());
    expect(commit.ops).toEqual([`due ${outcomeRef("acct", "closed")} null`, `due ${outcomeRef("acct", "gone")} null`]);
    expect([...changed.keys()]).toEqual([outcomeRef("acct", "due"), outcomeRef("acct", "later")]);
    expect(due.status).not.toBe("OPEN");
    expect(later.status).toBe("OPEN");
    expect(changed.get(outcomeRef("acct", "due"))).toMatchObject({
      created: false,
      openBefore: true,
      dueBefore: T0 + 1000,
    });
  });
});

describe("CommitStaging.ingestCounts", () => {
  it("counts a batch's events per account and minute received, one write per pair", () => {
    const commit = new Recorded();
    const at = (accountId: string, receivedAt: number): EventEnvelope => ({
      accountId,
      outcomeKey: "o",
      variant: "A",
      action: "a",
      receivedAt,
    });
    const events = [at("a", T0), at("a", T0 + 1000), at("a", T0 + 61_000), at("b", T0)];
    staging(false).ingestCounts(commit, [
      {
        id: "1-0",
        size: events.length,
        events: events.map((event, index) => ({
          index,
          event,
          ref: outcomeRef(event.accountId, "o"),
          bytes: Buffer.alloc(0),
        })),
      },
    ]);
    expect(commit.ops).toHaveLength(3);
    expect(commit.ops.map((op) => op.split(" ").at(-1))).toEqual(["2", "1", "1"]);
  });
});
