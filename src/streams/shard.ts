// Maps an outcome (account + key) to its shard: a stable FNV-1a hash, so every node agrees without talking.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fnv(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash;
}

/** FNV-1a of `${accountId}\0${outcomeKey}`, hashed part by part: every event pays it, so nothing is concatenated. */
export function shardOf(accountId: string, outcomeKey: string, shards: number): number {
  const hash = fnv(Math.imul(fnv(FNV_OFFSET, accountId), FNV_PRIME), outcomeKey);
  return (hash >>> 0) % shards;
}
