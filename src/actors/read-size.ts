// How many events a shard actor's next stream read asks for. Small reads keep 202-to-visible short while
// the shard keeps up; under a sustained backlog larger reads fold more of an outcome's events into one
// snapshot write and spread each commit's fixed cost (docs/performance.md, Read batch size). One full read
// is not a backlog (a GC pause or a slow commit fills one), so the size grows only after reads come back
// full twice in a row, and drops back to the base at the first read that does not fill. It grows to the
// maximum at once: a busy shard's entries carry tens of events each (one per request and shard), so a
// backlog is drained in a few dozen reads, too few for a gradual climb to reach the large size in time.

/** Full reads in a row after which reads take the maximum. */
const FULL_READS_TO_GROW = 2;

export class ReadSize {
  /** The most events a read asks for (never below the base). */
  readonly max: number;
  private current: number;
  private fullInARow = 0;

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

  /** Tells it whether the last read came back full (the stream held at least what was asked for). */
  observe(full: boolean): void {
    if (!full) {
      this.current = this.base;
      this.fullInARow = 0;
      return;
    }
    if (++this.fullInARow >= FULL_READS_TO_GROW) this.current = this.max;
  }
}
