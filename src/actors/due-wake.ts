// One timer per shard actor for the soonest due time a settle saw ahead: it requests a tick at that
// instant, so a deadline is forced when it comes rather than at the monitor's next whole-second tick.
export class DueWake {
  private timer: NodeJS.Timeout | undefined;
  private at = Infinity;

  constructor(
    private readonly clock: () => number,
    private readonly wake: () => void,
  ) {}

  /** Wakes at `at` (business clock ms) unless a wake at or before it is already set. */
  schedule(at: number): void {
    if (this.timer !== undefined && this.at <= at) return;
    clearTimeout(this.timer);
    this.at = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.at = Infinity;
        this.wake();
      },
      Math.max(0, at - this.clock()),
    );
  }

  /** `ms`, or less when the wake comes sooner (at least 1: a blocking read of 0 ms waits forever). */
  within(ms: number): number {
    if (this.timer === undefined) return ms;
    return Math.max(1, Math.min(ms, Math.ceil(this.at - this.clock())));
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.at = Infinity;
  }
}
