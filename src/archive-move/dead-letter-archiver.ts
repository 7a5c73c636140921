// Moves dead letters out of Redis, as the outcome and charge archivers move theirs: every pass over the
// shards this worker owns copies to PostgreSQL each account's letters older than the retention or beyond its
// per-shard count, and deletes them from Redis a grace period after their rows committed (a list reads the
// streams and PostgreSQL at slightly different moments; see outcome-archiver.ts). Whole events that the
// commit kept beside a truncated letter are copied first, at every pass. A crash anywhere repeats an insert
// that changes nothing; a letter is never gone from both. Without an archive the same limits drop letters
// instead, counted in verdict_dead_letters_dropped_total, so Redis stays bounded either way.
import { unpackDeadLetter } from "../outcomes/dead-letter.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { entryTimeMs } from "../streams/entry-id.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import { insertDeadLetters, type DeadLetterRow } from "../archive-read/archived-dead-letters.js";
import type { DeadLetterArchiveMetrics } from "./dead-letter-metrics.js";
import { faultPoint } from "./fault-point.js";
import { MonthPartitions } from "../archive-db/month-partitions.js";
import { Mover } from "./mover.js";

const PAGE = 500;
/**
 * Whole events read per call: each is larger than options.dlqMaxEventBytes (up to a batch body, 5 MiB), and
 * every account's enqueue waits behind a running Redis call, so a page is a few of them, not PAGE.
 */
const WHOLE_PAGE = 4;
/** Longest wait between a letter's row committing and its entry leaving Redis (as outcome-archiver.ts). */
const MAX_FORGET_GRACE_MS = 30_000;

export interface DeadLetterArchiverDeps {
  redis: RedisClient;
  keys: Keys;
  /** The archive; undefined drops what would move. */
  sql: ArchiveSql | undefined;
  shardCount: number;
  /** The shards this worker owns now. */
  shards: () => readonly number[];
  /** How long a dead letter stays in Redis. */
  retentionMs: number;
  /** Dead letters an account keeps in Redis, over all shards. */
  maxPerAccount: number;
  logger: Logger;
  metrics: DeadLetterArchiveMetrics;
  /** @default Date.now */
  now?: () => number;
  /** Between passes. @default 1000 */
  intervalMs?: number;
}

/** What a shard's copied-but-not-yet-deleted records say of one account's stream. */
interface Copied {
  upTo: string;
  count: number;
}

export class DeadLetterArchiver extends Mover {
  private readonly partitions: MonthPartitions | undefined;
  private readonly perShard: number;

  constructor(private readonly deps: DeadLetterArchiverDeps) {
    super({
      intervalMs: deps.intervalMs ?? 1000,
      logger: deps.logger,
      errors: deps.metrics.errors,
      failure: "dead-letter archive pass failed; Redis keeps the letters",
    });
    this.partitions = deps.sql && new MonthPartitions(deps.sql);
    this.perShard = Math.ceil(deps.maxPerAccount / deps.shardCount);
  }

  /** One pass over the owned shards. */
  override async pass(): Promise<void> {
    await this.eachShard(this.deps.shards(), (shard) => this.shardPass(shard), undefined);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private async shardPass(shard: number): Promise<void> {
    const { redis, keys, sql } = this.deps;
    if (sql) await this.copyWhole(shard);
    const copied = sql ? await this.forget(shard) : new Map<string, Copied>();
    for (const accountId of await redis.zrange(keys.deadLetterAccounts(shard), "0", "-1")) {
      if (this.stopping) return;
      if (sql) await this.copy(shard, accountId, copied.get(accountId));
      else await this.drop(shard, accountId);
    }
  }

  /** Copies the whole events kept beside truncated letters, then takes them off the queue. */
  private async copyWhole(shard: number): Promise<void> {
    const { redis, keys } = this.deps;
    const queue = keys.deadLetterWholeEvents(shard);
    await this.pageByPage(
      WHOLE_PAGE,
      async () => (await redis.xrangeBuffer(queue, "-", "+", "COUNT", WHOLE_PAGE)) as [Buffer, Buffer[]][],
      async (entries) => {
        const rows: DeadLetterRow[] = [];
        for (const [, fields] of entries) {
          // Fields d (the whole letter) and p (the truncated letter's entry in its account's stream).
          const letter = fields[1]!;
          const accountId = wholeLetterAccount(letter);
          rows.push({ accountId, shard, entryId: fields[3]!.toString(), letter });
        }
        await insertDeadLetters(this.deps.sql!, this.partitions!, rows, true);
        await redis.xdel(queue, ...entries.map(([id]) => id.toString()));
      },
    );
  }

  /** Deletes from Redis the letters copied a grace period ago; returns what the rest says per account. */
  private async forget(shard: number): Promise<Map<string, Copied>> {
    const { redis, keys } = this.deps;
    const graceEnd = this.now() - Math.min(MAX_FORGET_GRACE_MS, this.deps.retentionMs);
    const records = await redis.xrange(keys.deadLettersCopied(shard), "-", "+");
    const done: string[] = [];
    const copied = new Map<string, Copied>();
    for (const [id, fields] of records) {
      const [accountId, upTo, count] = [fields[1]!, fields[3]!, Number(fields[5])];
      if (entryTimeMs(id) <= graceEnd) {
        // Everything up to `upTo` was copied: the copy takes each stream's letters from its start.
        const removed = await redis.xtrim(keys.deadLetters(shard, accountId), "MINID", entryAfter(upTo));
        this.deps.metrics.archived.inc(removed);
        done.push(id);
        continue;
      }
      const before = copied.get(accountId);
      copied.set(accountId, { upTo, count: (before?.count ?? 0) + count });
    }
    if (done.length > 0) await redis.xdel(keys.deadLettersCopied(shard), ...done);
    return copied;
  }

  /** Copies the account's letters past the retention or beyond its count on this shard, oldest first. */
  private async copy(shard: number, accountId: string, copied: Copied | undefined): Promise<void> {
    const { redis, keys } = this.deps;
    const stream = keys.deadLetters(shard, accountId);
    const excess = (await redis.xlen(stream)) - (copied?.count ?? 0) - this.perShard;
    const cutoff = this.now() - this.deps.retentionMs;
    let start = copied ? `(${copied.upTo}` : "-";
    let moved = 0;
    // A page is the letters due from `start` on: those beyond the count, then those past the retention.
    const due = async (): Promise<{ entryId: string; letter: Buffer }[]> => {
      // Within the count, only an aged first letter makes a page worth reading (ids are in time order).
      if (moved >= excess && !(await this.agedFirst(stream, start, cutoff))) return [];
      const entries = (await redis.xrangeBuffer(stream, start, "+", "COUNT", PAGE)) as [Buffer, Buffer[]][];
      const read = entries.map(([id, fields]) => ({ entryId: id.toString(), letter: fields[1]! }));
      return read.slice(
        0,
        countWhile(read, (entry, i) => moved + i < excess || entryTimeMs(entry.entryId) < cutoff),
      );
    };
    await this.pageByPage(PAGE, due, async (selected) => {
      await insertDeadLetters(
        this.deps.sql!,
        this.partitions!,
        selected.map((entry) => ({ accountId, shard, ...entry })),
      );
      faultPoint("dead-letters-before-record");
      const upTo = selected[selected.length - 1]!.entryId;
      await redis.xadd(keys.deadLettersCopied(shard), "*", "a", accountId, "e", upTo, "n", String(selected.length));
      moved += selected.length;
      start = `(${upTo}`;
    });
  }

  /** Whether the stream's first letter from `start` was set aside before `cutoff`. */
  private async agedFirst(stream: string, start: string, cutoff: number): Promise<boolean> {
    const [first] = await this.deps.redis.xrange(stream, start, "+", "COUNT", 1);
    return first !== undefined && entryTimeMs(first[0]) < cutoff;
  }

  /** Without an archive: drops the account's letters past the retention or beyond its count on this shard. */
  private async drop(shard: number, accountId: string): Promise<void> {
    const { redis, keys, metrics } = this.deps;
    const stream = keys.deadLetters(shard, accountId);
    const aged = await redis.xtrim(stream, "MINID", `${Math.max(0, this.now() - this.deps.retentionMs)}-0`);
    if (aged > 0) metrics.dropped.inc({ reason: "age" }, aged);
    const counted = await redis.xtrim(stream, "MAXLEN", this.perShard);
    if (counted > 0) metrics.dropped.inc({ reason: "count" }, counted);
  }
}

/** How many items from the start satisfy `test`. */
function countWhile<T>(items: readonly T[], test: (item: T, index: number) => boolean): number {
  let i = 0;
  while (i < items.length && test(items[i]!, i)) i++;
  return i;
}

/** The smallest entry id after `id` (XTRIM MINID keeps ids from it on). */
function entryAfter(id: string): string {
  const [ms, seq] = id.split("-");
  return `${ms}-${BigInt(seq!) + 1n}`;
}

/** The account a whole letter belongs to (its event's). */
function wholeLetterAccount(letter: Buffer): string {
  return unpackDeadLetter(letter).event.accountId;
}
