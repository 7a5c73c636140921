// Maps an outcome (account + key) to its shard: a stable FNV-1a hash, so every node agrees without talking.
import { FNV_OFFSET, fnv1a, fnv1aSeparator } from "../hashing/fnv1a.js";

/** FNV-1a of `${accountId}\0${outcomeKey}`, hashed part by part: every event pays it, so nothing is concatenated. */
export function shardOf(accountId: string, outcomeKey: string, shards: number): number {
  const hash = fnv1a(fnv1aSeparator(fnv1a(FNV_OFFSET, accountId)), outcomeKey);
  return (hash >>> 0) % shards;
}
