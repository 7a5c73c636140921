// Maps an outcome (account + key) to its shard: a stable FNV-1a hash, so every node agrees without talking.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function shardOf(accountId: string, outcomeKey: string, shards: number): number {
  let hash = FNV_OFFSET;
  const text = `${accountId}\u0000${outcomeKey}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return (hash >>> 0) % shards;
}
