// `verdict archive run`: for a deployment that turns the archive on after running without it. Settled
// outcomes from before then are in no shard's settled index (only verdicts committed with an archive are),
// so this finds every settled outcome in Redis, adds it to its shard's settled index under its verdict time,
// and waits while the running workers (with an archive) move everything due; it prints
// {"queued": N} (outcomes it added to a settled index) once nothing due is left to copy.
import { migrate } from "../archive-db/archive-db.js";
import { openConfiguredArchive } from "../archive-db/configured-archive.js";
import { optionsFromEnv } from "../config/env.js";
import { unpackOutcome } from "../outcomes/outcome-record.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import { masters, type RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { withAccounts } from "./account.js";

const SCAN_COUNT = 1000;
/** Give up when nothing due has moved for this long: no worker with an archive is running. */
const STALL_MS = 60_000;

/** Adds every settled outcome in Redis to its shard's settled index (kept where already there); returns how many. */
export async function queueSettled(redis: RedisClient, keys: Keys, shards: number): Promise<number> {
  let queued = 0;
  const pattern = `${keys.prefix}{s*}:outcome:*`;
  for (const node of masters(redis)) {
    let cursor = "0";
    do {
      const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
      cursor = next;
      // A page's reads, then its writes, all in flight at once: awaiting each key's in turn made a backlog of
      // 50,000 take eight seconds to queue, longer than the workers took to copy it.
      const snapshots = await Promise.all(found.map((key) => node.getBuffer(key)));
      const added: Promise<number>[] = [];
      for (const [i, snapshot] of snapshots.entries()) {
        const shard = shardOfKey(keys, found[i]!, shards);
        if (!snapshot || shard === undefined) continue;
        const record = unpackOutcome(snapshot);
        if (record.status === "OPEN") continue;
        added.push(
          node.zadd(
            keys.settled(shard),
            "NX",
            record.verdictAt ?? Date.now(),
            outcomeRef(record.accountId, record.key),
          ),
        );
      }
      for (const count of await Promise.all(added)) queued += count;
    } while (cursor !== "0");
  }
  return queued;
}

function shardOfKey(keys: Keys, key: string, shards: number): number | undefined {
  const match = /^\{s(\d+)\}:outcome:/.exec(key.slice(keys.prefix.length));
  const shard = match ? Number(match[1]) : NaN;
  return Number.isInteger(shard) && shard < shards ? shard : undefined;
}

/** Settled outcomes whose verdict came at or before `until`, over the shards. */
async function dueCount(redis: RedisClient, keys: Keys, shards: number, until: number): Promise<number> {
  let due = 0;
  for (let shard = 0; shard < shards; shard++) due += await redis.zcount(keys.settled(shard), "-inf", until);
  return due;
}

export async function run(args: string[]): Promise<number> {
  const options = optionsFromEnv(process.env);
  const archive = args.length === 1 && args[0] === "run" ? await openConfiguredArchive(options) : undefined;
  if (archive === undefined) {
    process.stderr.write(
      "usage: VERDICT_ARCHIVE_URL=postgres://... verdict archive run (or with the embedded Redis: no REDIS_URL)\n",
    );
    return 2;
  }
  try {
    await migrate(archive.sql);
  } finally {
    await archive.close();
  }
  return withAccounts(async (_accounts, redis, keys) => {
    const queued = await queueSettled(redis, keys, options.shards);
    let left = await dueCount(redis, keys, options.shards, Date.now() - options.hotRetentionMs);
    let movedAt = Date.now();
    while (left > 0) {
      process.stderr.write(`${left} settled outcomes due to move; waiting for the workers\n`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const now = await dueCount(redis, keys, options.shards, Date.now() - options.hotRetentionMs);
      if (now < left) movedAt = Date.now();
      left = now;
      if (Date.now() - movedAt > STALL_MS) {
        process.stderr.write("nothing moved for a minute: is `verdict serve` running with this archive?\n");
        return 1;
      }
    }
    process.stdout.write(`${JSON.stringify({ queued })}\n`);
    return 0;
  });
}
