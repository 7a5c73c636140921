// MurmurHash3 (x86, 32-bit) over a string's UTF-16 code units, two to a 32-bit block: well mixed in every
// bit, where FNV-1a's low bits follow the shard number (shardOf takes FNV-1a modulo a power of two), so a
// per-shard structure needs a hash of its own. Stable across processes and versions: what it gives is
// stored (the archive's filters of archived outcomes), so changing it means rebuilding what was stored.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** The 32-bit MurmurHash3 of `text`'s code units with `seed`, unsigned. */
export function murmur3(text: string, seed: number): number {
  let h = seed | 0;
  const length = text.length;
  const pairs = length & ~1;
  for (let i = 0; i < pairs; i += 2) {
    let k = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (pairs < length) {
    let k = text.charCodeAt(pairs);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  // The length in bytes, as the reference implementation folds it: two per code unit.
  h ^= length * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
