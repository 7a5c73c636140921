// Reads one sorted source per shard as one sorted sequence, lazily: each shard is read a chunk at a time,
// and only once the merge has used up what it holds of that shard. A walk over N items reads about N of
// them whatever the shard count, where re-reading a page from every shard at each step read up to
// shards x page items per page (a filtered list over 100,000 outcomes read millions of index members).

export interface ShardSource<T> {
  /** Up to `count` items of `shard` in order, after `after` (the last one read from it) or from its start. */
  read(shard: number, after: T | undefined, count: number): Promise<T[]>;
  compare(a: T, b: T): number;
  /** A source read after the others whenever several are read in one round. */
  readLast?: number | undefined;
}

interface ShardBuffer<T> {
  shard: number;
  items: T[];
  at: number;
  /** The last item read from the shard: where its next read starts. */
  last: T | undefined;
  /** Items asked for in its next read: doubles each time, so a long walk takes few round trips per shard. */
  chunk: number;
  exhausted: boolean;
}

/** Largest read of one shard. */
const MAX_CHUNK = 1000;

export class ShardMerge<T> {
  private readonly buffers: ShardBuffer<T>[];

  /** `firstChunk`: items asked of each shard at first, about what one shard contributes to a page. */
  constructor(
    shards: number,
    private readonly source: ShardSource<T>,
    firstChunk: number,
  ) {
    this.buffers = Array.from({ length: shards }, (_, shard) => ({
      shard,
      items: [],
      at: 0,
      last: undefined,
      chunk: Math.max(1, firstChunk),
      exhausted: false,
    }));
  }

  /** The next `count` items of the merged order (fewer at its end). */
  async take(count: number): Promise<T[]> {
    const taken: T[] = [];
    while (taken.length < count) {
      const next = await this.head();
      if (!next) break;
      taken.push(next.items[next.at++]!);
    }
    return taken;
  }

  /**
   * The shard holding the smallest next item. When a shard has none buffered it must be read first; the
   * shards running low are read in the same round, so a walk takes a few rounds, not one per shard.
   */
  private async head(): Promise<ShardBuffer<T> | undefined> {
    if (this.buffers.some((buffer) => buffer.at === buffer.items.length && !buffer.exhausted)) {
      const low = this.buffers.filter(
        (buffer) => !buffer.exhausted && buffer.items.length - buffer.at <= buffer.chunk / 4,
      );
      const last = this.source.readLast;
      await Promise.all(low.filter((buffer) => buffer.shard !== last).map((buffer) => this.refill(buffer)));
      await Promise.all(low.filter((buffer) => buffer.shard === last).map((buffer) => this.refill(buffer)));
    }
    let best: ShardBuffer<T> | undefined;
    for (const buffer of this.buffers) {
      if (buffer.at === buffer.items.length) continue;
      if (!best || this.source.compare(buffer.items[buffer.at]!, best.items[best.at]!) < 0) best = buffer;
    }
    return best;
  }

  /** Appends the shard's next chunk to what it still holds. */
  private async refill(buffer: ShardBuffer<T>): Promise<void> {
    const items = await this.source.read(buffer.shard, buffer.last, buffer.chunk);
    buffer.items = buffer.items.slice(buffer.at).concat(items);
    buffer.at = 0;
    buffer.exhausted = items.length < buffer.chunk;
    if (items.length > 0) buffer.last = items[items.length - 1];
    buffer.chunk = Math.min(MAX_CHUNK, buffer.chunk * 2);
  }
}
