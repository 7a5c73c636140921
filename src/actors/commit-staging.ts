// What a shard's commit writes, staged without Redis: the fold's writes (acks, event logs, dead letters,
// charges), each changed outcome's snapshot, due time and indexes, what the batch taught the score models,
// and the ingest counts. The actor runs the staged commit (fenced-commit.ts); this file is unit-tested.
import { boundedLetter, packDeadLetter } from "../outcomes/dead-letter.js";
import { dueAtOf } from "../outcomes/due-time.js";
import type { ChargeRecord, QueuedCharge } from "../outcomes/charge.js";
import type { Notification } from "../outcomes/notification.js";
import { indexMember, SCORE_NAMES, scoreMember, type ScoreName } from "../outcomes/outcome-index.js";
import { packOutcome, type OutcomeRecord } from "../outcomes/outcome-record.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import { passTime } from "../outcomes/outcome-step.js";
import type { Keys } from "../redis/keys.js";
import { scoresOf } from "../scores/score-state.js";
import { countByMinute, hourOfMinute, INGEST_COUNT_TTL_MS } from "../streams/ingest-minutes.js";
import type { ActorMetrics } from "./actor-metrics.js";
import type { BatchCommit } from "./batch-commit.js";
import type { ChangedOutcome, FoldWrites } from "./batch-fold.js";
import type { BatchScoring } from "./batch-scoring.js";
import type { PreparedVerdicts } from "./prepared-verdicts.js";
import type { DecodedEntry } from "./shard-entries.js";

/** The operations staging writes: a BatchCommit's, so a test can record them. */
export type CommitOps = Pick<
  BatchCommit,
  | "ack"
  | "log"
  | "count"
  | "append"
  | "queueForArchive"
  | "index"
  | "unindex"
  | "outbox"
  | "outboxVerdict"
  | "expireOrphan"
  | "model"
  | "create"
  | "set"
  | "zadd"
  | "due"
  | "rollups"
>;

/** Idempotency keys of an event whose outcome does not exist are kept this long. */
export const ORPHAN_IDEMPOTENCY_TTL_MS = 30 * 24 * 3600 * 1000;
/** A shard's partial score model of a cohort that no commit trains for this long expires. */
export const SCORE_MODEL_TTL_MS = 30 * 24 * 3600 * 1000;

export interface CommitStagingDeps {
  keys: Keys;
  shard: number;
  /** With an archive, charges, whole dead-letter events and verdicts are queued for it in the commit. */
  archiving: boolean;
  /** A dead letter's event larger than this keeps only a prefix in Redis (options.dlqMaxEventBytes). */
  deadLetterMaxEventBytes: number;
  metrics: Pick<ActorMetrics, "charges" | "snapshotBytes" | "observeScore">;
}

export class CommitStaging {
  constructor(private readonly deps: CommitStagingDeps) {}

  /** The fold's writes as operations of the commit; dead letters are counted by code for the metrics. */
  foldWrites(
    commit: CommitOps,
    deadLettered: Map<string, number>,
    records: ReadonlyMap<string, OutcomeRecord>,
  ): FoldWrites {
    const { keys, shard } = this.deps;
    // Built once per outcome per batch: the same string then also hashes once in the commit's key table.
    const logKeys = new Map<string, string>();
    const orphaned = new Set<string>();
    return {
      ack: (entryId) => commit.ack(entryId),
      log: (ref, event, bytes) => {
        let key = logKeys.get(ref);
        if (key === undefined) {
          key = keys.eventLog(shard, event.accountId, event.outcomeKey);
          logKeys.set(ref, key);
        }
        commit.log(key, bytes);
      },
      billable: (event, customerKey) => commit.count(keys.usage(shard, event.accountId), customerKey, 1),
      deadLetter: (letter) => {
        const whole = packDeadLetter(letter);
        const kept = boundedLetter(letter, whole.length, this.deps.deadLetterMaxEventBytes);
        const bytes = kept === letter ? whole : packDeadLetter(kept);
        commit.append(keys.deadLetters(shard, letter.event.accountId), bytes);
        // Follows the append, so the archiver learns which letter the whole event belongs to.
        if (kept !== letter && this.deps.archiving) commit.queueForArchive(keys.deadLetterWholeEvents(shard), whole);
        commit.index(keys.deadLetterAccounts(shard), letter.event.accountId);
        this.notify(commit, { kind: "dead_letter", accountId: letter.event.accountId, bytes });
        deadLettered.set(letter.code, (deadLettered.get(letter.code) ?? 0) + 1);
        commit.rollups.deadLetter(letter, records.get(outcomeRef(letter.event.accountId, letter.event.outcomeKey)));
      },
      orphan: (event) => {
        // Only a keyed event claimed a key in the outcome's idempotency hash, and one expiry per hash and
        // commit does (every one of a commit's expiries runs before its snapshots are written).
        if (event.idempotencyKey === undefined) return;
        const key = keys.idempotency(shard, event.accountId, event.outcomeKey);
        if (orphaned.has(key)) return;
        orphaned.add(key);
        commit.expireOrphan(key, keys.outcome(shard, event.accountId, event.outcomeKey), ORPHAN_IDEMPOTENCY_TTL_MS);
      },
      charge: (record, charge) => this.charge(commit, record, charge),
    };
  }

  /** A confirmed Variant B outcome's charge, its webhook notification and, with an archive, its queue entry. */
  charge(commit: CommitOps, record: OutcomeRecord, charge: ChargeRecord): void {
    const { keys, shard } = this.deps;
    const bytes = Buffer.from(JSON.stringify(charge));
    commit.append(keys.charges(shard, record.accountId), bytes);
    this.notify(commit, { kind: "charge", accountId: record.accountId, bytes });
    // Queued in the same commit as the charge itself, so the archive gets every charge exactly once in effect,
    // with the position of its entry in the charge stream (the listing's order).
    if (this.deps.archiving) {
      const queued: QueuedCharge = { account_id: record.accountId, charge };
      commit.queueForArchive(keys.chargesToArchive(shard), Buffer.from(JSON.stringify(queued)));
    }
    commit.rollups.charge(record.accountId, charge);
    this.deps.metrics.charges.inc();
  }

  /**
   * Lets time pass up to `until` on the due outcomes `refs`: each OPEN one reaches what its condition says
   * then (its charge staged); a ref whose outcome is gone or settled leaves the due-time index. An outcome
   * with a verdict prepared ahead has time passed to its deadline, as the preparation did (the verdict at a
   * deadline is the same for any later `until`), and takes the prepared snapshot when it came out the same.
   */
  passTime(
    commit: CommitOps,
    refs: readonly string[],
    records: ReadonlyMap<string, OutcomeRecord>,
    until: number,
    scoring: BatchScoring,
    prepared?: PreparedVerdicts,
  ): Map<string, ChangedOutcome> {
    const changed = new Map<string, ChangedOutcome>();
    for (const ref of refs) {
      const record = records.get(ref);
      if (!record || record.status !== "OPEN") {
        commit.due(ref, null);
        continue;
      }
      const deadline = prepared?.dueOf(ref);
      const dueBefore = deadline ?? dueAtOf(record);
      const scoresBefore = scoresOf(record.scores);
      const passed = passTime(record, deadline ?? until);
      if (passed.charge) this.charge(commit, record, passed.charge);
      if (record.status !== "OPEN") scoring.verdict(record);
      const snapshot = deadline === undefined ? undefined : prepared?.take(ref, record);
      changed.set(ref, { record, created: false, dueBefore, scoresBefore, openBefore: true, snapshot });
    }
    return changed;
  }

  /** Snapshot, due-time and index writes for every changed outcome, and what the batch taught the score models. */
  changes(commit: CommitOps, changed: ReadonlyMap<string, ChangedOutcome>, scoring: BatchScoring): void {
    const { keys, shard, metrics } = this.deps;
    for (const { cohort, delta } of scoring.deltas) {
      if (delta.empty) continue;
      const { counts, sums } = delta.pairs();
      commit.model(keys.scoreModel(shard, cohort.accountId, cohort.kind, cohort.key), counts, sums, SCORE_MODEL_TTL_MS);
    }
    const scoreIndexOf = this.scoreIndexes();
    // Once per commit, not per verdict: a storm's commit names each of them hundreds of times.
    const outbox = keys.webhookOutbox(shard);
    const webhookAccounts = keys.webhookAccounts(shard);
    const settled = keys.settled(shard);
    for (const [ref, { record, created, dueBefore, scoresBefore, openBefore, snapshot: prepared }] of changed) {
      const key = keys.outcome(shard, record.accountId, record.key);
      const snapshot = prepared ?? packOutcome(record);
      metrics.snapshotBytes.observe(snapshot.length);
      if (created) {
        commit.create(key, snapshot, keys.idempotency(shard, record.accountId, record.key));
        commit.index(keys.outcomeIndex(shard, record.accountId), indexMember(record.createdAt, record.key));
      } else {
        commit.set(key, snapshot);
      }
      // The verdict's webhook notification commits with the verdict itself (docs/webhooks.md).
      if (openBefore && record.status !== "OPEN") {
        commit.outboxVerdict(outbox, record.accountId, snapshot, webhookAccounts);
        // Retention runs from the commit of the verdict, in wall time (the business clock may be frozen).
        if (this.deps.archiving) commit.zadd(settled, Date.now(), ref);
      }
      // Most events leave the due time where it was (no deadline, or none that moved): no index write.
      const due = dueAtOf(record);
      if (due !== dueBefore) commit.due(ref, due);
      for (const name of SCORE_NAMES) {
        const before = scoresBefore?.[name] ?? null;
        const after = record.scores[name];
        if (before === after) continue;
        const index = scoreIndexOf(record.accountId, name);
        if (before !== null) commit.unindex(index, scoreMember(before, record.key));
        if (after !== null) {
          commit.index(index, scoreMember(after, record.key));
          metrics.observeScore(name, after);
        }
      }
      if (created) commit.rollups.opened(record);
      if (openBefore && record.status !== "OPEN") commit.rollups.verdict(record);
    }
  }

  /** The batch's events per account and minute received (the dashboard's ingest chart): one write per pair. */
  ingestCounts(commit: CommitOps, entries: readonly DecodedEntry[]): void {
    const { keys, shard } = this.deps;
    const events = entries.flatMap((entry) => entry.events.map(({ event }) => event));
    for (const [accountId, minutes] of countByMinute(events)) {
      for (const [minute, n] of minutes)
        commit.count(keys.ingestCounts(shard, accountId, hourOfMinute(minute)), String(minute), n, INGEST_COUNT_TTL_MS);
    }
  }

  private notify(commit: CommitOps, notification: Notification): void {
    const { keys, shard } = this.deps;
    commit.outbox(keys.webhookOutbox(shard), notification, keys.webhookAccounts(shard));
  }

  /** Score index keys built once per account per commit: the same strings then also hash once in the commit's key table. */
  private scoreIndexes(): (accountId: string, name: ScoreName) => string {
    const { keys, shard } = this.deps;
    const byAccount = new Map<string, Record<ScoreName, string>>();
    return (accountId, name) => {
      let indexes = byAccount.get(accountId);
      if (!indexes) {
        indexes = {
          trajectory: keys.scoreIndex(shard, accountId, "trajectory"),
          anomaly: keys.scoreIndex(shard, accountId, "anomaly"),
          novelty: keys.scoreIndex(shard, accountId, "novelty"),
        };
        byAccount.set(accountId, indexes);
      }
      return indexes[name];
    };
  }
}
