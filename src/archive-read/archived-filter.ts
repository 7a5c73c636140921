// Which of a batch's unknown outcomes the archive may hold, without asking it. An event whose outcome is in
// neither the worker's memory nor Redis is for a new outcome or for an archived one, and an archived one must
// never reopen; asking PostgreSQL for every batch of new Variant B keys was the largest part of what the
// archive cost end to end. So each shard keeps a Bloom filter in Redis of the refs the archiver deleted:
// archive-delete.lua sets their bits in the script that deletes their keys, so no outcome is ever gone from
// Redis and missing from the filter. A batch then asks PostgreSQL only about refs whose bits are all set
// (archived ones, and false positives).
//
// A filter is trusted only once it holds every outcome the archive holds, including those archived before
// filters existed (or before Redis lost them): the byte after its bits holds the layout version, set by a
// rebuild that scanned the archive. Until then every unknown ref is looked up, as before; the first worker
// to find a filter not ready rebuilds them all, the others wait for it. Reading the version in the same
// command as the bits means a Redis that lost the filter (FLUSHALL, a restore) is never trusted.
import { randomBytes } from "node:crypto";
import { murmur3 } from "../hashing/murmur3.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { shardOf } from "../streams/shard.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";

/**
 * Bits per shard: 256 KiB of Redis each. With FILTER_HASHES hashes, 1% of unknown refs are false positives at
 * about 200,000 archived outcomes per shard and 9% at 400,000; past that more batches query PostgreSQL, as
 * every batch did without a filter.
 */
export const FILTER_BITS = 2 ** 21;
export const FILTER_HASHES = 5;
/** Bumped whenever the bits, hashes or hash function change: a filter of another layout is rebuilt. */
export const FILTER_LAYOUT_VERSION = 1;
/** Where the layout version is kept: the byte right after the bits. */
const VERSION_OFFSET = FILTER_BITS;
const SEED_1 = 0x9747b28c;
const SEED_2 = 0x5bd1e995;
/** Archived outcomes read per query while rebuilding. */
const REBUILD_PAGE = 10_000;
/** Refs looked up per BITFIELD call: a batch of thousands of new keys is several short calls, not one long one. */
const REFS_PER_CALL = 500;
/** How long the rebuild lock lives without being extended (each page extends it). */
const REBUILD_LOCK_MS = 60_000;
/** Between attempts to rebuild, while a filter is found not ready. */
const REBUILD_RETRY_MS = 10_000;

/** The bit offsets of a ref in its shard's filter (double hashing: h1 + i * h2). */
export function filterOffsets(ref: string): number[] {
  const h1 = murmur3(ref, SEED_1);
  // Odd, so the offsets of one ref are distinct modulo the power-of-two size.
  const h2 = murmur3(ref, SEED_2) | 1;
  const offsets: number[] = [];
  for (let i = 0; i < FILTER_HASHES; i++) offsets.push((h1 + Math.imul(i, h2)) & (FILTER_BITS - 1));
  return offsets;
}

export interface ArchivedFilterDeps {
  redis: RedisClient;
  keys: Keys;
  sql: ArchiveSql;
  shards: number;
  logger: Logger;
  /** Wall clock for retries. @default Date.now */
  now?: () => number;
}

export class ArchivedFilter {
  private rebuilding: Promise<void> | undefined;
  private lastAttempt = -Infinity;
  private retry: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(private readonly deps: ArchivedFilterDeps) {}

  /**
   * The refs of one shard's batch that the archive may hold: those whose bits are all set, or all of them
   * while the shard's filter is not ready (which starts a rebuild, at most every REBUILD_RETRY_MS).
   */
  async mayHold(shard: number, refs: readonly string[]): Promise<string[]> {
    if (refs.length === 0) return [];
    const slices: Promise<number[]>[] = [];
    for (let start = 0; start < refs.length; start += REFS_PER_CALL) {
      const args: (string | number)[] = ["GET", "u8", VERSION_OFFSET];
      for (const ref of refs.slice(start, start + REFS_PER_CALL))
        for (const offset of filterOffsets(ref)) args.push("GET", "u1", offset);
      slices.push(this.deps.redis.call("BITFIELD", this.deps.keys.archivedFilter(shard), ...args) as Promise<number[]>);
    }
    const answers = await Promise.all(slices);
    if (answers.some((bits) => bits[0] !== FILTER_LAYOUT_VERSION)) {
      this.prepare();
      return [...refs];
    }
    return refs.filter((_, i) => {
      const bits = answers[Math.floor(i / REFS_PER_CALL)]!;
      const at = (i % REFS_PER_CALL) * FILTER_HASHES;
      for (let h = 1; h <= FILTER_HASHES; h++) if (bits[at + h] === 0) return false;
      return true;
    });
  }

  /**
   * Rebuilds the filters in the background when one is not ready: now, or once REBUILD_RETRY_MS have
   * passed since the last attempt (another worker's rebuild may have made them ready by then).
   */
  prepare(): void {
    if (this.rebuilding || this.retry || this.stopping) return;
    const now = (this.deps.now ?? Date.now)();
    const wait = this.lastAttempt + REBUILD_RETRY_MS - now;
    if (wait > 0) {
      this.retry = setTimeout(() => {
        this.retry = undefined;
        this.prepare();
      }, wait);
      this.retry.unref();
      return;
    }
    this.lastAttempt = now;
    this.rebuilding = this.rebuildIfNeeded()
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error },
          "rebuilding the archived-outcome filters failed; batches ask the archive meanwhile",
        ),
      )
      .finally(() => (this.rebuilding = undefined));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retry);
    await this.rebuilding;
  }

  /** Whether every shard's filter is of the current layout. */
  async ready(): Promise<boolean> {
    const versions = await Promise.all(
      Array.from(
        { length: this.deps.shards },
        (_, shard) =>
          this.deps.redis.call(
            "BITFIELD",
            this.deps.keys.archivedFilter(shard),
            "GET",
            "u8",
            VERSION_OFFSET,
          ) as Promise<number[]>,
      ),
    );
    return versions.every(([version]) => version === FILTER_LAYOUT_VERSION);
  }

  /**
   * Sets the bits of every archived outcome, then marks every shard's filter ready. Outcomes the archiver
   * deletes meanwhile set their own bits (archive-delete.lua), so nothing is missed between the scan's pages.
   */
  private async rebuildIfNeeded(): Promise<void> {
    const { redis, keys, sql, shards, logger } = this.deps;
    if (await this.ready()) return;
    const lockKey = keys.archivedFilterRebuild();
    const lock = randomBytes(8).toString("hex");
    if ((await redis.set(lockKey, lock, "PX", REBUILD_LOCK_MS, "NX")) !== "OK") return;
    try {
      const started = performance.now();
      let after: { account_id: string; key: string } | undefined;
      let count = 0;
      for (;;) {
        if (this.stopping) return;
        const rows = await sql<{ account_id: string; key: string }[]>`
          SELECT account_id, key FROM outcomes
          ${after === undefined ? sql`` : sql`WHERE (account_id, key) > (${after.account_id}, ${after.key})`}
          ORDER BY account_id, key LIMIT ${REBUILD_PAGE}`;
        if (rows.length === 0) break;
        const sets = new Map<number, (string | number)[]>();
        for (const row of rows) {
          const shard = shardOf(row.account_id, row.key, shards);
          let args = sets.get(shard);
          if (!args) sets.set(shard, (args = []));
          for (const offset of filterOffsets(outcomeRef(row.account_id, row.key))) args.push("SET", "u1", offset, 1);
        }
        await Promise.all(
          [...sets].map(([shard, args]) => redis.call("BITFIELD", keys.archivedFilter(shard), ...args)),
        );
        await redis.pexpire(lockKey, REBUILD_LOCK_MS);
        count += rows.length;
        after = rows[rows.length - 1];
      }
      await Promise.all(
        Array.from({ length: shards }, (_, shard) =>
          redis.call("BITFIELD", keys.archivedFilter(shard), "SET", "u8", VERSION_OFFSET, FILTER_LAYOUT_VERSION),
        ),
      );
      logger.info(
        { outcomes: count, ms: Math.round(performance.now() - started) },
        "archived-outcome filters rebuilt from the archive",
      );
    } finally {
      if ((await redis.get(lockKey)) === lock) await redis.del(lockKey);
    }
  }
}
