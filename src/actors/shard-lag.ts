// How far behind one shard's actor is, and how many dead letters wait in the shard: read from Redis on a
// timer by the shard's owner (never per event), for the per-shard lag and dead-letter gauges.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { CONSUMER_GROUP } from "./consumer-group.js";

export interface ShardLag {
  /** Stream entries not yet committed: delivered but pending, plus not yet delivered to the group. */
  entries: number;
  /** Age of the oldest of those entries (from its stream id's time), 0 when there is none. */
  oldestSeconds: number;
  /** Dead letters waiting in the shard, over every account that has had any. */
  deadLetters: number;
}

/** The milliseconds part of a stream entry id ("<ms>-<seq>"). */
function entryTime(id: string): number {
  return Number(id.slice(0, id.indexOf("-")));
}

/** The group's fields from XINFO GROUPS (a flat name/value list per group). */
async function groupInfo(client: RedisClient, stream: string): Promise<Map<string, unknown> | undefined> {
  let groups: unknown[][];
  try {
    groups = (await client.xinfo("GROUPS", stream)) as unknown[][];
  } catch (error) {
    // No stream yet (a shard that never received an event before its actor created the group).
    if (String(error).includes("no such key")) return undefined;
    throw error;
  }
  for (const fields of groups) {
    const info = new Map<string, unknown>();
    for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
    if (info.get("name") === CONSUMER_GROUP) return info;
  }
  return undefined;
}

/**
 * Reads one shard's lag: XINFO GROUPS (pending and undelivered counts), XPENDING's summary (the oldest
 * pending id) or, with nothing pending, the first undelivered entry; then XLEN of each dead-letter stream.
 * All keys carry the shard's tag: on a cluster every call goes to the shard's master.
 */
export async function readShardLag(client: RedisClient, keys: Keys, shard: number, now: number): Promise<ShardLag> {
  const stream = keys.stream(shard);
  const group = await groupInfo(client, stream);
  let entries = 0;
  let oldest: string | undefined;
  if (group) {
    const pending = Number(group.get("pending") ?? 0);
    // `lag` (Redis 7): entries not yet delivered; null when Redis cannot tell (after deletions), then 0 is
    // the honest lower bound and the age below still finds the oldest undelivered entry.
    const undelivered = Number(group.get("lag") ?? 0);
    entries = pending + undelivered;
    if (pending > 0) {
      const summary = (await client.xpending(stream, CONSUMER_GROUP)) as [
        number,
        string | null,
        string | null,
        unknown,
      ];
      oldest = summary[1] ?? undefined;
    } else {
      const next = (await client.xrange(stream, `(${String(group.get("last-delivered-id"))}`, "+", "COUNT", 1)) as [
        string,
        string[],
      ][];
      oldest = next[0]?.[0];
    }
  }
  const accounts = await client.zrange(keys.deadLetterAccounts(shard), "0", "-1");
  const lengths = await Promise.all(accounts.map((accountId) => client.xlen(keys.deadLetters(shard, accountId))));
  return {
    entries,
    oldestSeconds: oldest === undefined ? 0 : Math.max(0, now - entryTime(oldest)) / 1000,
    deadLetters: lengths.reduce((sum, n) => sum + n, 0),
  };
}
