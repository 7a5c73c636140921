// Reads configuration records for one batch of a shard: each record is fetched at most once per batch, and
// reads can start early (prefetch) so the batch's Variant B creations wait for one round trip, not one each.
import type { RecordKind } from "./record-kind.js";

export interface RecordReader {
  get<T>(accountId: string, kind: RecordKind, key: string): Promise<T | undefined>;
}

export class BatchRecordReader implements RecordReader {
  private readonly reads = new Map<string, Promise<unknown>>();

  constructor(private readonly store: RecordReader) {}

  get<T>(accountId: string, kind: RecordKind, key: string): Promise<T | undefined> {
    const id = `${accountId}\u0000${kind}\u0000${key}`;
    let read = this.reads.get(id);
    if (!read) {
      read = this.store.get<T>(accountId, kind, key);
      // A prefetched read may fail before anyone awaits it: whoever awaits it still sees the error.
      read.catch(() => {});
      this.reads.set(id, read);
    }
    return read as Promise<T | undefined>;
  }
}
