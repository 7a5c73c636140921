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
import type { ArchiveSql } from "./archive-db.js";
import type { ArchiveMetrics } from "./archive-metrics.js";
import { archivable, createdMemberOf } from "./archived-outcomes.js";
import { faultPoint } from "./fault-point.js";
import { MonthPartitions } from "./month-partitions.js";
import { storableJson, storableText } from "./storable-text.js";

/** Outcomes per move: one MGET, one PostgreSQL transaction and one delete script call. */
const PAGE = 500;
/**
 * Longest wait between an outcome's rows committing and its keys leaving Redis (shorter when the retention
 * is): far longer than a listing takes to read its sources.
 */
const MAX_DELETE_GRACE_MS = 30_000;
/** Rows per INSERT statement, well inside PostgreSQL's 65,535 parameters (eleven per event row). */
const EVENT_ROWS_PER_INSERT = 4000;

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
  /** Runs archive-delete.lua (the worker's scripts). */
  deleteScript: (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;
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

export class OutcomeArchiver {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Set by stop: a pass in progress ends after the page in hand instead of draining a backlog. */
  private stopping = false;
  private readonly partitions: MonthPartitions;

  constructor(private readonly deps: OutcomeArchiverDeps) {
    this.partitions = new MonthPartitions(deps.sql);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.pass()
        .then(() => undefined)
        .finally(() => (this.running = undefined));
    }, this.deps.intervalMs ?? 1000);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * Archives every outcome due now on the owned shards (`until`: the latest verdict time that is due) and
   * deletes from Redis those archived a grace period ago; returns how many left Redis.
   */
  async pass(until = this.now() - this.deps.retentionMs): Promise<number> {
    let lagMs = 0;
    // Shards at once: each step waits on PostgreSQL or Redis, and the pool serves several transactions.
    const moved = await Promise.all(
      this.deps.leases().map(async (lease) => {
        try {
          const left = await this.drain(lease, until);
          const oldest = await this.deps.redis.zrange(this.deps.keys.settled(lease.shard), "0", "0", "WITHSCORES");
          if (oldest[1] !== undefined) lagMs = Math.max(lagMs, until - Number(oldest[1]));
          return left;
        } catch (error) {
          this.deps.metrics.errors.inc();
          this.deps.logger.warn({ err: error, shard: lease.shard }, "outcome archive pass failed; Redis keeps the outcomes until the next pass");
          return 0;
        }
      }),
    );
    this.deps.metrics.lagSeconds.set(Math.max(0, lagMs) / 1000);
    return moved.reduce((a, b) => a + b, 0);
  }

  /** Copies the shard's due outcomes, then deletes those copied a grace period ago; returns how many left Redis. */
  private async drain(lease: ShardLease, until: number): Promise<number> {
    const { redis, keys } = this.deps;
    for (;;) {
      const refs = await redis.zrangebyscore(keys.settled(lease.shard), "-inf", until, "LIMIT", 0, PAGE);
      if (refs.length === 0) break;
      await this.copy(lease.shard, refs);
      if (refs.length < PAGE || this.stopping) break;
    }
    let moved = 0;
    const graceEnd = this.now() - Math.min(MAX_DELETE_GRACE_MS, this.deps.retentionMs);
    for (;;) {
      const refs = await redis.zrangebyscore(keys.archived(lease.shard), "-inf", graceEnd, "LIMIT", 0, PAGE);
      if (refs.length === 0) return moved;
      faultPoint("archive-before-delete");
      const deleted = await this.delete(lease, refs);
      if (deleted < 0) return moved; // the shard moved to another worker: it archives from here
      this.deps.forget(lease.shard, refs);
      this.deps.metrics.outcomesArchived.inc(deleted);
      moved += deleted;
      if (refs.length < PAGE || this.stopping) return moved;
    }
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
    for (const { ref, snapshot, log } of due) {
      step.zadd(keys.archived(shard), archivedAt, ref).hset(keys.archivedDigests(shard), ref, digestOf(snapshot, log.length));
    }
    // Refs without a snapshot are gone already; the unarchivable stay in Redis, out of the settled index.
    await step.exec();
  }

  /** Snapshots and event logs of the refs still in Redis; the unarchivable are counted and left out. */
  private async read(shard: number, refs: readonly string[]): Promise<Due[]> {
    const { redis, keys } = this.deps;
    const snapshots = await redis.mgetBuffer(...refs.map((ref) => keyOfRef(keys, shard, ref)));
    const due: Due[] = [];
    const logs: Promise<[Buffer, Buffer[]][]>[] = [];
    refs.forEach((ref, i) => {
      const snapshot = snapshots[i];
      if (!snapshot) return;
      const record = unpackOutcome(snapshot);
      if (!archivable(record)) {
        this.deps.metrics.outcomesUnarchivable.inc();
        this.deps.logger.warn({ shard, account: record.accountId }, "settled outcome kept in Redis: its key holds a NUL character, which PostgreSQL cannot store");
        return;
      }
      due.push({ ref, record, snapshot, log: [] });
      logs.push(redis.xrangeBuffer(keys.eventLog(shard, record.accountId, record.key), "-", "+"));
    });
    const read = await Promise.all(logs);
    due.forEach((outcome, i) => {
      outcome.log = read[i]!.map(([id, fields]) => [id.toString(), fields[1] ?? Buffer.alloc(0)]);
    });
    return due;
  }

  /** One transaction: the outcomes (upserted: a repeat after a crash writes the same row) and their events. */
  private async commitRows(due: readonly Due[]): Promise<void> {
    const { sql } = this.deps;
    await this.partitions.ensure("outcomes", due.map(({ record }) => record.createdAt));
    await this.partitions.ensure("outcome_events", due.map(({ record }) => record.createdAt));
    const outcomes = due.map(outcomeRow);
    const events = due.flatMap(eventRows);
    await sql.begin(async (tx) => {
      await tx`
        INSERT INTO outcomes ${sql(outcomes)}
        ON CONFLICT (account_id, key, created_at) DO UPDATE SET
          status = EXCLUDED.status, verdict_at = EXCLUDED.verdict_at, trajectory = EXCLUDED.trajectory,
          anomaly = EXCLUDED.anomaly, novelty = EXCLUDED.novelty, trajectory_member = EXCLUDED.trajectory_member,
          anomaly_member = EXCLUDED.anomaly_member, novelty_member = EXCLUDED.novelty_member,
          snapshot = EXCLUDED.snapshot, archived_at = now()`;
      for (let at = 0; at < events.length; at += EVENT_ROWS_PER_INSERT) {
        await tx`INSERT INTO outcome_events ${sql(events.slice(at, at + EVENT_ROWS_PER_INSERT))} ON CONFLICT DO NOTHING`;
      }
    });
  }

  /** Step 2: deletes the outcomes' keys where they still hold what was archived (the script checks). */
  private async delete({ shard, leaseValue }: ShardLease, refs: readonly string[]): Promise<number> {
    const { redis, keys } = this.deps;
    const scriptKeys: string[] = [keys.lease(shard), keys.fence(shard), keys.archived(shard), keys.archivedDigests(shard), keys.settled(shard), keys.due(shard)];
    const args: (string | number)[] = [leaseValue, this.now()];
    const snapshots = await redis.mgetBuffer(...refs.map((ref) => keyOfRef(keys, shard, ref)));
    refs.forEach((ref, i) => {
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
      const snapshot = snapshots[i];
      if (!snapshot) {
        args.push(ref, "", "", "", "");
        return;
      }
      const record = unpackOutcome(snapshot);
      const scores = record.scores;
      args.push(
        ref,
        createdMemberOf(record),
        scores.trajectory === null ? "" : scoreMember(scores.trajectory, record.key),
        scores.anomaly === null ? "" : scoreMember(scores.anomaly, record.key),
        scores.novelty === null ? "" : scoreMember(scores.novelty, record.key),
      );
    });
    return Number(await this.deps.deleteScript(scriptKeys, args));
  }
}

function keyOfRef(keys: Keys, shard: number, ref: string): string {
  const { accountId, outcomeKey } = parseOutcomeRef(ref);
  return keys.outcome(shard, accountId, outcomeKey);
}

/** What step 2 checks an outcome's keys against: the archived snapshot's SHA-1 and the log's length. */
function digestOf(snapshot: Buffer, logLength: number): string {
  return `${createHash("sha1").update(snapshot).digest("hex")} ${logLength}`;
}

function outcomeRow({ record, snapshot }: Due): Record<string, string | number | Date | Buffer | null> {
  const origin = record.origin;
  const scores = record.scores;
  return {
    account_id: record.accountId,
    key: record.key,
    created_at: new Date(record.createdAt),
    status: record.status,
    task_key: origin.kind === "task" ? storableText(origin.taskKey) : null,
    agent_key: origin.kind === "agent" ? storableText(origin.agentKey) : null,
    customer_key: origin.kind === "agent" ? storableText(origin.customerKey) : null,
    verdict_at: record.verdictAt === null ? null : new Date(record.verdictAt),
    trajectory: scores.trajectory,
    anomaly: scores.anomaly,
    novelty: scores.novelty,
    created_member: createdMemberOf(record),
    trajectory_member: scores.trajectory === null ? null : scoreMember(scores.trajectory, record.key),
    anomaly_member: scores.anomaly === null ? null : scoreMember(scores.anomaly, record.key),
    novelty_member: scores.novelty === null ? null : scoreMember(scores.novelty, record.key),
    snapshot,
  };
}

function eventRows({ record, log }: Due): Record<string, unknown>[] {
  return log.map(([id, envelope]) => {
    const event = unpackEnvelope(envelope);
    const [ms, seq] = id.split("-");
    return {
      account_id: record.accountId,
      outcome_key: record.key,
      outcome_created_at: new Date(record.createdAt),
      id_ms: ms,
      id_seq: seq,
      action: storableText(event.action),
      properties: storableJson(event.properties ?? {}),
      idempotency_key: event.idempotencyKey === undefined ? null : storableText(event.idempotencyKey),
      received_at: new Date(event.receivedAt),
      envelope,
    };
  });
}
