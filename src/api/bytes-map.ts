// A map keyed by short byte strings (a day hash's field names as Redis sent them), found by their bytes: a
// read of 36,000 fields makes no string per field to look its group up.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashOf(bytes: Uint8Array): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  return hash;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class BytesMap<V> {
  /** Entries by their key's FNV-1a hash; keys copied, so no reply's buffer is kept alive by the map. */
  private readonly byHash = new Map<number, Array<{ key: Uint8Array; value: V }>>();

  get(key: Uint8Array): V | undefined {
    const entries = this.byHash.get(hashOf(key));
    if (entries) for (const entry of entries) if (sameBytes(entry.key, key)) return entry.value;
    return undefined;
  }

  /** Adds a key not yet in the map. */
  add(key: Uint8Array, value: V): void {
    const hash = hashOf(key);
    let entries = this.byHash.get(hash);
    if (!entries) this.byHash.set(hash, (entries = []));
    entries.push({ key: Uint8Array.prototype.slice.call(key), value });
  }
}
