// The worker's in-memory outcomes, bounded: the least recently used are dropped and reload from their snapshot.
import type { OutcomeRecord } from "../outcomes/outcome-record.js";

export class HotOutcomes {
  // A Map iterates in insertion order; re-inserting on access makes the first entry the least recently used.
  private readonly records = new Map<string, OutcomeRecord>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.records.size;
  }

  private static id(shard: number, ref: string): string {
    return `${shard}|${ref}`;
  }

  get(shard: number, ref: string): OutcomeRecord | undefined {
    const id = HotOutcomes.id(shard, ref);
    const record = this.records.get(id);
    if (record) {
      this.records.delete(id);
      this.records.set(id, record);
    }
    return record;
  }

  set(shard: number, ref: string, record: OutcomeRecord): void {
    const id = HotOutcomes.id(shard, ref);
    this.records.delete(id);
    this.records.set(id, record);
    while (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value;
      if (oldest === undefined) break;
      this.records.delete(oldest);
    }
  }

  delete(shard: number, ref: string): void {
    this.records.delete(HotOutcomes.id(shard, ref));
  }

  /** Forgets a shard's outcomes: after a handover they may have changed under another owner. */
  dropShard(shard: number): void {
    const prefix = `${shard}|`;
    for (const id of this.records.keys()) if (id.startsWith(prefix)) this.records.delete(id);
  }
}
