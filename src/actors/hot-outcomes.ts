// The worker's in-memory outcomes, bounded: the least recently used are dropped and reload from their snapshot.
import type { OutcomeRecord } from "../outcomes/outcome-record.js";

interface Hot {
  shard: number;
  ref: string;
  record: OutcomeRecord;
}

export class HotOutcomes {
  /** Per shard, by outcome ref: what a batch looks up, without building a combined key per event. */
  private readonly byShard = new Map<number, Map<string, Hot>>();
  // A Set iterates in insertion order; re-inserting on access makes the first entry the least recently used.
  private readonly recency = new Set<Hot>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.recency.size;
  }

  private touch(hot: Hot): void {
    this.recency.delete(hot);
    this.recency.add(hot);
  }

  get(shard: number, ref: string): OutcomeRecord | undefined {
    const hot = this.byShard.get(shard)?.get(ref);
    if (!hot) return undefined;
    this.touch(hot);
    return hot.record;
  }

  set(shard: number, ref: string, record: OutcomeRecord): void {
    let outcomes = this.byShard.get(shard);
    if (!outcomes) {
      outcomes = new Map();
      this.byShard.set(shard, outcomes);
    }
    const hot = outcomes.get(ref);
    if (hot) {
      hot.record = record;
      this.touch(hot);
    } else {
      const added = { shard, ref, record };
      outcomes.set(ref, added);
      this.recency.add(added);
    }
    for (const oldest of this.recency) {
      if (this.recency.size <= this.capacity) break;
      this.remove(oldest);
    }
  }

  private remove(hot: Hot): void {
    this.recency.delete(hot);
    this.byShard.get(hot.shard)?.delete(hot.ref);
  }

  delete(shard: number, ref: string): void {
    const hot = this.byShard.get(shard)?.get(ref);
    if (hot) this.remove(hot);
  }

  /** Forgets a shard's outcomes: after a handover they may have changed under another owner. */
  dropShard(shard: number): void {
    const outcomes = this.byShard.get(shard);
    if (!outcomes) return;
    for (const hot of outcomes.values()) this.recency.delete(hot);
    this.byShard.delete(shard);
  }
}
