// How many events a shard actor's next stream read asks for. Small reads keep 202-to-visible short while
// the shard keeps up; under a sustained backlog larger reads fold more of an outcome's events into one
// snapshot write and spread each commit's fixed cost (docs/performance.md, Read batch size). A full read
// alone is not a backlog: near its capacity a shard reads full often, and reads grown then make commits
// long enough to delay the worker's other shards (202-to-visible p99 went from 107-228 to 353-367 ms at
// 31,000 events/s when full reads alone made them grow). So reads grow only when one comes back full with
// its oldest entry at least SUSTAINED_LAG_MS old, to the maximum at once (a busy shard drains a backlog in
// a few dozen reads of entries carrying 20-100 events each: a gradual climb arrives too late), stay there
// while reads keep coming back full, and drop back to the base at the first read that does not fill.

/**
 * How old the oldest entry of a full read must be for the shard to count as behind. The age is the worker's
 * clock against the entry id's time, which is Redis's clock: hosts kept by NTP agree far closer than this.
 */
export const SUSTAINED_LAG_MS = 1000;

export class ReadSize {
  /** The most events a read asks for (never below the base). */
  readonly max: number;
  private current: number;

  /** `max` below `base` means no growth: reads never go below the base. */
  constructor(
    private readonly base: number,
    max: number,
  ) {
    this.max = Math.max(base, max);
    this.current = base;
  }

  /** Events the next read asks for (about: the read counts whole stream entries). */
  get events(): number {
    return this.current;
  }

  /**
   * Tells it about the last read: whether it came back full (the stream held at least what was asked for),
   * and how old its oldest entry was.
   */
  observe(full: boolean, oldestAgeMs: number): void {
    if (!full) this.current = this.base;
    else if (oldestAgeMs >= SUSTAINED_LAG_MS) this.current = this.max;
  }
}
