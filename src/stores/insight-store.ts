// Reads an account's insight rollups for a range of hours: the archived ones from PostgreSQL, then the hot
// ones from every shard, each counted once (docs/insights.md#where-rollups-live).
import { setImmediate as nextTurn } from "node:timers/promises";
import { ApiError } from "../errors/api-error.js";
import {
  dayOf,
  parseMoveMember,
  parseRollupMember,
  type RollupDay,
  type RollupHour,
} from "../outcomes/insight-rollup.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";

/** The archive's side: rollups moved to PostgreSQL, one row per hour, with the ids of the moves they came in. */
export interface ArchivedRollups {
  read(accountId: string, from: number, to: number): Promise<{ moves: ReadonlySet<string>; hours: RollupHour[] }>;
}

/**
 * Shards one read has asked Redis for at once. Every shard's reply at once arrives, is decoded and is added up
 * in one stretch that the other reads under way wait behind; two keep Redis busy while the last reply is
 * added up.
 */
const SHARDS_IN_FLIGHT = 2;

/** Archived hours added up per event-loop turn, for the same reason. */
const HOURS_PER_TURN = 2000;

/** Values of day hashes (fields and counts, an even number) added up per event-loop turn. */
const DAY_VALUES_PER_TURN = 4000;

/** Reads of a shard that saw its rollups move meanwhile are repeated at most this often (a mover takes a page at once). */
const MAX_SNAPSHOT_TRIES = 10;

/** A shard's rollups moved under every one of MAX_SNAPSHOT_TRIES reads. */
class SnapshotUnstable extends Error {}

/** ioredis's rejection of a command that got no reply within the client's command timeout. */
const TIMED_OUT = "Command timed out";

/**
 * A read Redis took too long to answer (busy, while its liveness probe still gets through) or whose rollups
 * kept moving: both pass, so the answer is a 503 to retry, like the reads of a Redis found down.
 */
function readFailure(error: unknown): unknown {
  if (!(error instanceof Error) || !(error.message === TIMED_OUT || error instanceof SnapshotUnstable)) return error;
  return new ApiError("SERVICE_UNAVAILABLE", "the data store did not answer in time; retry shortly", undefined, {
    cause: error,
    retryAfterSeconds: 1,
  });
}

/**
 * Takes an account's rollups of a range as they are read: archived hours from PostgreSQL, then each shard's
 * days' hashes from Redis as its reply arrives, so one shard's reply is added up (and garbage) before the
 * next is decoded rather than all of them held at once.
 */
export interface RollupSink {
  hours(hours: readonly RollupHour[]): void;
  days(days: readonly RollupDay[]): void;
}

/**
 * A shard's days cut into slices of about DAY_VALUES_PER_TURN values, each added up in an event-loop turn of
 * its own so that the other reads under way take turns with it (a day hash may be cut: its fields add up
 * alone).
 */
function* slices(days: readonly RollupDay[]): Generator<RollupDay[]> {
  let slice: RollupDay[] = [];
  let values = 0;
  for (const { day, fields } of days) {
    for (let at = 0; at < fields.length;) {
      const part = fields.slice(at, at + DAY_VALUES_PER_TURN - values);
      slice.push({ day, fields: part });
      values += part.length;
      at += part.length;
      if (values >= DAY_VALUES_PER_TURN) {
        yield slice;
        slice = [];
        values = 0;
      }
    }
  }
  if (slice.length > 0) yield slice;
}

/** A reply of MULTI's, or its error. */
function replyOf<T>(entry: [Error | null, unknown] | undefined): T {
  if (!entry) throw new Error("a rollup read's MULTI answered fewer replies than it sent");
  if (entry[0]) throw entry[0];
  return entry[1] as T;
}

export class InsightStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
    private readonly archive: ArchivedRollups | undefined,
  ) {}

  /**
   * Hands `sink` the rollups of hours in [from, to), and in Redis of the rest of their days (the sink keeps
   * the hours it wants). PostgreSQL is read first: a move it had committed by then is skipped in Redis, and
   * one it commits later is still in Redis then (the mover deletes a moved rollup from Redis only a grace
   * period after PostgreSQL committed it). A failed read may have handed over some shards' days already.
   */
  async read(accountId: string, from: number, to: number, sink: RollupSink): Promise<void> {
    const archived = this.archive
      ? await this.archive.read(accountId, dayOf(from), to)
      : { moves: new Set<string>(), hours: [] };
    for (let i = 0; i < archived.hours.length; i += HOURS_PER_TURN) {
      if (i > 0) await nextTurn();
      sink.hours(archived.hours.slice(i, i + HOURS_PER_TURN));
    }
    let next = 0;
    let failed = false;
    const reader = async (): Promise<void> => {
      while (next < this.shards && !failed) {
        for (const slice of slices(await this.shardDays(next++, accountId, dayOf(from), to, archived.moves))) {
          await nextTurn();
          sink.days(slice);
        }
      }
    };
    try {
      await Promise.all(
        Array.from({ length: Math.min(SHARDS_IN_FLIGHT, this.shards) }, () =>
          reader().catch((error: unknown) => {
            failed = true;
            throw error;
          }),
        ),
      );
    } catch (error) {
      throw readFailure(error);
    }
  }

  /** Which of the shard's rollup keys hold the account's days in range, live or being moved (not yet archived). */
  private candidates(
    shard: number,
    accountId: string,
    from: number,
    to: number,
    live: string[],
    moves: string[],
    copied: ReadonlySet<string>,
  ): Array<{ day: number; key: string }> {
    const found: Array<{ day: number; key: string }> = [];
    for (const member of live) {
      const { day, accountId: account } = parseRollupMember(member);
      if (account === accountId) found.push({ day, key: this.keys.insightRollupDay(shard, accountId, day) });
    }
    for (const member of moves) {
      const { moveId, day, accountId: account } = parseMoveMember(member);
      if (account === accountId && day >= from && day < to && !copied.has(moveId))
        found.push({ day, key: this.keys.insightRollupMoving(shard, moveId) });
    }
    return found;
  }

  /**
   * The shard's indexes and the named day hashes in one MULTI (one instant; the keys share the shard's hash
   * tag). Native HGETALL with bytes kept as bytes: Redis writes each stored value straight into its reply,
   * and each group's day reaches insight-series as the msgpack it is stored as.
   */
  private async snapshot(
    daysKey: string,
    movesKey: string,
    from: number,
    to: number,
    keys: readonly string[],
  ): Promise<{ live: string[]; moves: string[]; hashes: Buffer[][] }> {
    const multi = this.redis.multi();
    multi.zrangebyscore(daysKey, String(from), `(${to}`);
    multi.zrange(movesKey, "0", "-1");
    for (const key of keys) multi.callBuffer("HGETALL", key);
    const replies = await multi.exec();
    if (!replies) throw new Error("a rollup read's MULTI was discarded");
    return {
      live: replyOf(replies[0]),
      moves: replyOf(replies[1]),
      hashes: keys.map((_, i) => replyOf<Buffer[]>(replies[i + 2])),
    };
  }

  /**
   * One shard's hot rollups as of one instant: one MULTI reads the hashes with the two indexes, and
   * is run again when that instant's indexes name a key it did not read (a rollup renamed for its move, or
   * a day first written, since the keys were listed). A key read that no longer holds anything (moved
   * away, or deleted after its grace period) adds nothing.
   */
  private async shardDays(
    shard: number,
    accountId: string,
    from: number,
    to: number,
    copied: ReadonlySet<string>,
  ): Promise<RollupDay[]> {
    const daysKey = this.keys.insightRollupDays(shard);
    const movesKey = this.keys.insightRollupMoves(shard);
    const [live, moves] = await Promise.all([
      this.redis.zrangebyscore(daysKey, String(from), `(${to}`),
      this.redis.zrange(movesKey, "0", "-1"),
    ]);
    let wanted = this.candidates(shard, accountId, from, to, live, moves, copied);
    for (let tries = 1; ; tries++) {
      const read = await this.snapshot(
        daysKey,
        movesKey,
        from,
        to,
        wanted.map(({ key }) => key),
      );
      const now = this.candidates(shard, accountId, from, to, read.live, read.moves, copied);
      const seen = new Set(wanted.map(({ key }) => key));
      if (now.every(({ key }) => seen.has(key))) return wanted.map(({ day }, i) => ({ day, fields: read.hashes[i]! }));
      if (tries === MAX_SNAPSHOT_TRIES) throw new SnapshotUnstable(`shard ${shard}'s rollups kept moving while read`);
      wanted = now;
    }
  }
}
