// Which live worker should own each shard: rendezvous hashing, so a join or a death moves only the shards
// that must move, and every worker computes the same answer from the same membership list.

import { FNV_OFFSET, fnv1a } from "../hashing/fnv1a.js";

function weight(workerId: string, shard: number): number {
  let hash = fnv1a(FNV_OFFSET, `${workerId}/${shard}`);
  // A final avalanche step: FNV alone clusters on similar worker ids.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/** The shards `workerId` should own among `liveWorkers` (which includes it). */
export function desiredShards(workerId: string, liveWorkers: readonly string[], shards: number): Set<number> {
  const mine = new Set<number>();
  for (let shard = 0; shard < shards; shard++) {
    let best = workerId;
    let bestWeight = weight(workerId, shard);
    for (const other of liveWorkers) {
      const w = weight(other, shard);
      if (w > bestWeight || (w === bestWeight && other > best)) {
        best = other;
        bestWeight = w;
      }
    }
    if (best === workerId) mine.add(shard);
  }
  return mine;
}
