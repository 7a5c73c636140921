// 32-bit FNV-1a: cheap, stable across processes and versions, so every node computes the same shard and the
// same shard owners without talking. Not for anything an attacker could exploit by choosing collisions.

export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Folds `text`'s UTF-16 code units into `hash`; start from FNV_OFFSET. The result is signed: use `>>> 0`. */
export function fnv1a(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash;
}

/** Folds a zero code unit: a separator no text can forge by its own characters' hashing alone. */
export function fnv1aSeparator(hash: number): number {
  return Math.imul(hash, FNV_PRIME);
}
