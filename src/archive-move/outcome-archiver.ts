// Moves settled outcomes from Redis to PostgreSQL once their hot retention has passed, so Redis holds the
// open work, not the history. The commit that makes a verdict adds the outcome to its shard's settled
// index; the shard's owner archives what came due in two steps:
// 1. copy: it reads the snapshots and event logs, commits their rows to PostgreSQL, and records what it
//    committed (the snapshot's digest, the log's length) in the shard's archived index;
// 2. delete, a grace period later: it deletes the outcome's keys, fenced by its lease, only if they are
//    still what was committed (archive-delete.lua).
// A crash anywhere repeats an upsert that changes nothing; an outcome is never gone from both. The grace
// period is what lets a listing read Redis and PostgreSQL at slightly different moments and still see
// every outcome once: anything deleted from Redis was in PostgreSQL for longer than any listing takes.
import { createHash } from "node:crypto";
import { scoreMember } from "../outcomes/outcome-index.js";
import { unpackOutcome, type OutcomeRecord } from "../outcomes/outcome-record.js";
import { parseOutcomeRef } from "../outcomes/outcome-ref.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { unpackEnvelope } from "../streams/event-envelope.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import type { ArchiveMetrics } from "./archive-metrics.js";
import { FILTER_HASHES, filterOffsets } from "../archive-read/archived-filter.js";
import { archivable, createdMemberOf } from "../archive-read/archived-outcomes.js";
import { faultPoint } from "./fault-point.js";
import { MonthPartitions } from "../archive-db/month-partitions.js";
import { storableJson, storableText } from "../archive-db/storable-text.js";
import { Mover } from "./mover.js";

/** Outcomes per move: one MGET, one PostgreSQL transaction and one delete script call. */
const PAGE = 500;
/**
 * Longest wait between an outcome's rows committing and its keys leaving Redis (shorter when the retention
 * is): far longer than a listing takes to read its sources.
 */
const MAX_DELETE_GRACE_MS = 30_000;
/** PostgreSQL's type id for bytea: an array of Buffers is sent as bytea[] only when told (else as one bytea). */
const BYTEA = 17;

export interface ShardLease {
  shard: number;
  leaseValue: string;
}

export interface OutcomeArchiverDeps {
  redis: RedisClient;
  keys: Keys;
  sql: ArchiveSql;
  /** How long a settled outcome stays in Redis after its verdict. */
  retentionMs: number;
  /** The shards this worker owns now, with the lease each delete is fenced by. */
  leases: () => readonly ShardLease[];
  /** Runs archive-delete.lua (the worker's scripts): how many outcomes it deleted, or "lease-lost". */
  deleteScript: (keys: readonly string[], args: readonly (string | number)[]) => Promise<number | "lease-lost">;
  /** Drops archived outcomes from the worker's memory. */
  forget: (shard: number, refs: readonly string[]) => void;
  logger: Logger;
  metrics: ArchiveMetrics;
  /** Wall clock for retention. @default Date.now */
  now?: () => number;
  /** Between passes. @default 1000 */
  intervalMs?: number;
}

interface Due {
  ref: string;
  record: OutcomeRecord;
  snapshot: Buffer;
  log: [string, Buffer][];
}

export class OutcomeArchiver extends Mover {
  private readonly partitions: MonthPartitions;

  constructor(private readonly deps: OutcomeArchiverDeps) {
    super({
      intervalMs: deps.intervalMs ?? 1000,
      logger: deps.logger,
      errors: deps.metrics.errors,
      failure: "outcome archive pass failed; Redis keeps the outcomes until the next pass",
    });
    this.partitions = new MonthPartitions(deps.sql);
  }

  /**
   * Archives every outcome due now on the owned shards (`until`: the latest verdict time that is due) and
   * deletes from Redis those archived a grace period ago; returns how many left Redis.
   */
  override async pass(until = this.now() - this.deps.retentionMs): Promise<number> {
    let lagMs = 0;
    const moved = await this.eachShard(
      this.deps.leases(),
      async (lease) => {
        const left = await this.drain(lease, until);
        const oldest = await this.deps.redis.zrange(this.deps.keys.settled(lease.shard), "0", "0", "WITHSCORES");
        if (oldest[1] !== undefined) lagMs = Math.max(lagMs, until - Number(oldest[1]));
        return left;
      },
      0,
    );
    this.deps.metrics.lagSeconds.set(Math.max(0, lagMs) / 1000);
    return moved.reduce((a, b) => a + b, 0);
  }

  /** Copies the shard's due outcomes, then deletes those copied a grace period ago; returns how many left Redis. */
  private async drain(lease: ShardLease, until: number): Promise<number> {
    const { redis, keys } = this.deps;
    await this.pageByPage(
      PAGE,
      () => redis.zrangebyscore(keys.settled(lease.shard), "-inf", until, "LIMIT", 0, PAGE),
      (refs) => this.copy(lease.shard, refs),
    );
    let moved = 0;
    const graceEnd = this.now() - Math.min(MAX_DELETE_GRACE_MS, this.deps.retentionMs);
    await this.pageByPage(
      PAGE,
      () => redis.zrangebyscore(keys.archived(lease.shard), "-inf", graceEnd, "LIMIT", 0, PAGE),
      async (refs) => {
        faultPoint("archive-before-delete");
        const deleted = await this.delete(lease, refs);
        if (deleted === "lease-lost") return "stop"; // the shard moved to another worker: it archives from here
        this.deps.forget(lease.shard, refs);
        this.deps.metrics.outcomesArchived.inc(deleted);
        moved += deleted;
        return "next";
      },
    );
    return moved;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Step 1: the rows committed, then what they hold recorded in the archived index, for step 2 to check. */
  private async copy(shard: number, refs: readonly string[]): Promise<void> {
    const { redis, keys } = this.deps;
    const due = await this.read(shard, refs);
    if (due.length > 0) await this.commitRows(due);
    const archivedAt = this.now();
    const step = redis.multi().zrem(keys.settled(shard), ...refs);
    // One ZADD and one HSET for the page: a command per outcome cost more CPU than the PostgreSQL insert.
    if (due.length > 0) {
      step.zadd(keys.archived(shard), ...due.flatMap(({ ref }) => [archivedAt, ref]));
      step.hset(keys.archivedDigests(shard), ...due.flatMap((outcome) => [outcome.ref, archivedValueOf(outcome)]));
    }
    // Refs without a snapshot are gone already; the unarchivable stay in Redis, out of the settled index.
    await step.exec();
  }

  /** Snapshots and event logs of the refs still in Redis; the unarchivable are counted and left out. */
  private async read(shard: number, refs: readonly string[]): Promise<Due[]> {
    const { redis, keys } = this.deps;
    const snapshots = await redis.mgetBuffer(...refs.map((ref) => keyOfRef(keys, shard, ref)));
    const due: Due[] = [];
    // The logs in one pipeline (one write: a write per XRANGE was a fifth of the copy's CPU); all of a
    // shard's keys share its hash slot, so this holds on a cluster too.
    const logs = redis.pipeline();
    refs.forEach((ref, i) => {
      const snapshot = snapshots[i];
      if (!snapshot) return;
      const record = unpackOutcome(snapshot);
      if (!archivable(record)) {
        this.deps.metrics.outcomesUnarchivable.inc();
        this.deps.logger.warn(
          { shard, account: record.accountId },
          "settled outcome kept in Redis: its key holds a NUL character, which PostgreSQL cannot store",
        );
        return;
      }
      due.push({ ref, record, snapshot, log: [] });
      logs.xrangeBuffer(keys.eventLog(shard, record.accountId, record.key), "-", "+");
    });
    if (due.length === 0) return due;
    const read = (await logs.exec()) ?? [];
    due.forEach((outcome, i) => {
      const [error, entries] = read[i] ?? [new Error("no reply")];
      if (error) throw error;
      outcome.log = (entries as [Buffer, Buffer[]][]).map(([id, fields]) => [
        id.toString(),
        fields[1] ?? Buffer.alloc(0),
      ]);
    });
    return due;
  }

  /**
   * One transaction: the outcomes (upserted: a repeat after a crash writes the same row) and their events.
   * Each table's rows go as one array per column, unnested: the statement's text is the same for every
   * page, so it is parsed and planned once per connection, where a multi-row VALUES list of 8,500
   * parameters was planned again for every page.
   */
  private async commitRows(due: readonly Due[]): Promise<void> {
    const { sql } = this.deps;
    await this.partitions.ensure(
      "outcomes",
      due.map(({ record }) => record.createdAt),
    );
    await this.partitions.ensure(
      "outcome_events",
      due.map(({ record }) => record.createdAt),
    );
    const o = outcomeColumns(due);
    const e = eventColumns(due);
    await sql.begin(async (tx) => {
      await tx`
        INSERT INTO outcomes (account_id, key, created_at, status, task_key, agent_key, customer_key, verdict_at,
          trajectory, anomaly, novelty, created_member, trajectory_member, anomaly_member, novelty_member, snapshot)
        SELECT * FROM unnest(${o.accountId}::text[], ${o.key}::text[], ${o.createdAt}::timestamptz[], ${o.status}::text[],
          ${o.taskKey}::text[], ${o.agentKey}::text[], ${o.customerKey}::text[], ${o.verdictAt}::timestamptz[],
          ${o.trajectory}::float8[], ${o.anomaly}::float8[], ${o.novelty}::float8[], ${o.createdMember}::text[],
          ${o.trajectoryMember}::text[], ${o.anomalyMember}::text[], ${o.noveltyMember}::text[], ${sql.array(o.snapshot, BYTEA)}::bytea[])
        ON CONFLICT (account_id, key, created_at) DO UPDATE SET
          status = EXCLUDED.status, verdict_at = EXCLUDED.verdict_at, trajectory = EXCLUDED.trajectory,
          anomaly = EXCLUDED.anomaly, novelty = EXCLUDED.novelty, trajectory_member = EXCLUDED.trajectory_member,
          anomaly_member = EXCLUDED.anomaly_member, novelty_member = EXCLUDED.novelty_member,
          snapshot = EXCLUDED.snapshot, archived_at = now()`;
      if (e.accountId.length === 0) return;
      await tx`
        INSERT INTO outcome_events (account_id, outcome_key, outcome_created_at, id_ms, id_seq, action, properties,
          idempotency_key, received_at, envelope)
        SELECT account_id, outcome_key, outcome_created_at, id_ms, id_seq, action, properties::jsonb,
          idempotency_key, received_at, envelope
        FROM unnest(${e.accountId}::text[], ${e.outcomeKey}::text[], ${e.outcomeCreatedAt}::timestamptz[],
          ${e.idMs}::int8[], ${e.idSeq}::int8[], ${e.action}::text[], ${e.properties}::text[], ${e.idempotencyKey}::text[],
          ${e.receivedAt}::timestamptz[], ${sql.array(e.envelope, BYTEA)}::bytea[])
          AS rows (account_id, outcome_key, outcome_created_at, id_ms, id_seq, action, properties, idempotency_key,
            received_at, envelope)
        ON CONFLICT DO NOTHING`;
    });
    // Planner statistics as the partitions fill (month-partitions.ts); a failure costs a stale plan, not the page.
    try {
      await this.partitions.inserted(
        "outcomes",
        due.map(({ record }) => record.createdAt),
      );
      await this.partitions.inserted(
        "outcome_events",
        due.flatMap(({ record, log }) => log.map(() => record.createdAt)),
      );
    } catch (error) {
      this.deps.logger.warn({ err: error }, "analysing the archive's partitions failed");
    }
  }

  /** Step 2: deletes the outcomes' keys where they still hold what was archived (the script checks). */
  private async delete({ shard, leaseValue }: ShardLease, refs: readonly string[]): Promise<number | "lease-lost"> {
    const { keys } = this.deps;
    const scriptKeys: string[] = [
      keys.lease(shard),
      keys.fence(shard),
      keys.archived(shard),
      keys.archivedDigests(shard),
      keys.settled(shard),
      keys.due(shard),
      keys.archivedFilter(shard),
    ];
    const args: (string | number)[] = [leaseValue, this.now(), FILTER_HASHES];
    for (const ref of refs) {
      const { accountId, outcomeKey } = parseOutcomeRef(ref);
      scriptKeys.push(
        keys.outcome(shard, accountId, outcomeKey),
        keys.eventLog(shard, accountId, outcomeKey),
        keys.idempotency(shard, accountId, outcomeKey),
        keys.outcomeIndex(shard, accountId),
        keys.scoreIndex(shard, accountId, "trajectory"),
        keys.scoreIndex(shard, accountId, "anomaly"),
        keys.scoreIndex(shard, accountId, "novelty"),
      );
      // The script takes the outcome's index members from what step 1 recorded beside its digest: reading
      // and unpacking every snapshot again for them was the largest part of the archive's CPU.
      args.push(ref, ...filterOffsets(ref));
    }
    return this.deps.deleteScript(scriptKeys, args);
  }
}

function keyOfRef(keys: Keys, shard: number, ref: string): string {
  const { accountId, outcomeKey } = parseOutcomeRef(ref);
  return keys.outcome(shard, accountId, outcomeKey);
}

/**
 * What step 1 records of an archived outcome, for step 2 (archive-delete.lua): `<sha1> <log length> <members>`,
 * the snapshot's SHA-1 and the log's length, which the keys must still match, then the JSON of its index
 * members (creation, trajectory, anomaly, novelty; "" when unscored), which the script removes.
 */
function archivedValueOf({ record, snapshot, log }: Due): string {
  const scores = record.scores;
  const members = [
    createdMemberOf(record),
    scores.trajectory === null ? "" : scoreMember(scores.trajectory, record.key),
    scores.anomaly === null ? "" : scoreMember(scores.anomaly, record.key),
    scores.novelty === null ? "" : scoreMember(scores.novelty, record.key),
  ];
  return `${createHash("sha1").update(snapshot).digest("hex")} ${log.length} ${JSON.stringify(members)}`;
}

/** The outcomes' rows, column by column (the arrays commitRows unnests). */
function outcomeColumns(due: readonly Due[]) {
  const columns = {
    accountId: [] as string[],
    key: [] as string[],
    createdAt: [] as string[],
    status: [] as string[],
    taskKey: [] as (string | null)[],
    agentKey: [] as (string | null)[],
    customerKey: [] as (string | null)[],
    verdictAt: [] as (string | null)[],
    trajectory: [] as (number | null)[],
    anomaly: [] as (number | null)[],
    novelty: [] as (number | null)[],
    createdMember: [] as string[],
    trajectoryMember: [] as (string | null)[],
    anomalyMember: [] as (string | null)[],
    noveltyMember: [] as (string | null)[],
    snapshot: [] as Buffer[],
  };
  for (const { record, snapshot } of due) {
    const { origin, scores } = record;
    columns.accountId.push(record.accountId);
    columns.key.push(record.key);
    columns.createdAt.push(new Date(record.createdAt).toISOString());
    columns.status.push(record.status);
    columns.taskKey.push(origin.kind === "task" ? storableText(origin.taskKey) : null);
    columns.agentKey.push(origin.kind === "agent" ? storableText(origin.agentKey) : null);
    columns.customerKey.push(origin.kind === "agent" ? storableText(origin.customerKey) : null);
    columns.verdictAt.push(record.verdictAt === null ? null : new Date(record.verdictAt).toISOString());
    columns.trajectory.push(scores.trajectory);
    columns.anomaly.push(scores.anomaly);
    columns.novelty.push(scores.novelty);
    columns.createdMember.push(createdMemberOf(record));
    columns.trajectoryMember.push(scores.trajectory === null ? null : scoreMember(scores.trajectory, record.key));
    columns.anomalyMember.push(scores.anomaly === null ? null : scoreMember(scores.anomaly, record.key));
    columns.noveltyMember.push(scores.novelty === null ? null : scoreMember(scores.novelty, record.key));
    columns.snapshot.push(snapshot);
  }
  return columns;
}

/** The events' rows, column by column, in each outcome's log order. */
function eventColumns(due: readonly Due[]) {
  const columns = {
    accountId: [] as string[],
    outcomeKey: [] as string[],
    outcomeCreatedAt: [] as string[],
    idMs: [] as string[],
    idSeq: [] as string[],
    action: [] as string[],
    properties: [] as string[],
    idempotencyKey: [] as (string | null)[],
    receivedAt: [] as string[],
    envelope: [] as Buffer[],
  };
  for (const { record, log } of due) {
    const createdAt = new Date(record.createdAt).toISOString();
    for (const [id, envelope] of log) {
      const event = unpackEnvelope(envelope);
      const dash = id.indexOf("-");
      columns.accountId.push(record.accountId);
      columns.outcomeKey.push(record.key);
      columns.outcomeCreatedAt.push(createdAt);
      columns.idMs.push(id.slice(0, dash));
      columns.idSeq.push(id.slice(dash + 1));
      columns.action.push(storableText(event.action));
      columns.properties.push(JSON.stringify(storableJson(event.properties ?? {})));
      columns.idempotencyKey.push(event.idempotencyKey === undefined ? null : storableText(event.idempotencyKey));
      columns.receivedAt.push(new Date(event.receivedAt).toISOString());
      columns.envelope.push(envelope);
    }
  }
  return columns;
}
