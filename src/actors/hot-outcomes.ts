// The worker's in-memory outcomes, bounded: the least recently used are dropped and reload from their snapshot.
import type { OutcomeRecord } from "../outcomes/outcome-record.js";

/** A hot outcome, linked into the recency list: `older` towards the eviction end, `newer` towards use. */
interface Hot {
  shard: number;
  ref: string;
  record: OutcomeRecord;
  older: Hot | undefined;
  newer: Hot | undefined;
}

export class HotOutcomes {
  /** Per shard, by outcome ref: what a batch looks up, without building a combined key per event. */
  private readonly byShard = new Map<number, Map<string, Hot>>();
  // A doubly linked list, not a re-inserted Set: finding a Set's first entry walks past every entry deleted
  // since its last rehash, which made each set() cost microseconds under steady use (measured: 12% of a
  // worker's CPU). Here a use and an eviction are a few pointer moves.
  private oldest: Hot | undefined;
  private newest: Hot | undefined;
  private count = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.count;
  }

  get(shard: number, ref: string): OutcomeRecord | undefined {
    const hot = this.byShard.get(shard)?.get(ref);
    if (!hot) return undefined;
    this.unlink(hot);
    this.append(hot);
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
      this.unlink(hot);
      this.append(hot);
      return;
    }
    const added: Hot = { shard, ref, record, older: undefined, newer: undefined };
    outcomes.set(ref, added);
    this.append(added);
    while (this.count > this.capacity && this.oldest) this.remove(this.oldest);
  }

  delete(shard: number, ref: string): void {
    const hot = this.byShard.get(shard)?.get(ref);
    if (hot) this.remove(hot);
  }

  /** Forgets a shard's outcomes: after a handover they may have changed under another owner. */
  dropShard(shard: number): void {
    const outcomes = this.byShard.get(shard);
    if (!outcomes) return;
    for (const hot of outcomes.values()) this.unlink(hot);
    this.byShard.delete(shard);
  }

  private remove(hot: Hot): void {
    this.unlink(hot);
    this.byShard.get(hot.shard)?.delete(hot.ref);
  }

  /** Puts an unlinked outcome at the newest end. */
  private append(hot: Hot): void {
    hot.older = this.newest;
    hot.newer = undefined;
    if (this.newest) this.newest.newer = hot;
    else this.oldest = hot;
    this.newest = hot;
    this.count++;
  }

  private unlink(hot: Hot): void {
    if (hot.older) hot.older.newer = hot.newer;
    else this.oldest = hot.newer;
    if (hot.newer) hot.newer.older = hot.older;
    else this.newest = hot.older;
    hot.older = undefined;
    hot.newer = undefined;
    this.count--;
  }
}
