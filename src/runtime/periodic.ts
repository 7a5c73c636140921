// A loop on a timer with one run at a time: a tick that finds the last run still going is skipped, so a
// slow Redis or PostgreSQL never builds a queue of runs, and stop waits for the run in hand.

export interface PeriodicOptions {
  intervalMs: number;
  /** Also run at start, not only one interval later. @default false */
  runAtStart?: boolean;
  /** Let the process exit while this timer is all that is left. @default false */
  unref?: boolean;
  /** Told of a run that threw (the loop goes on); without it a throw is ignored. */
  onError?: (error: unknown) => void;
}

export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly run: () => Promise<unknown> | void,
    private readonly options: PeriodicOptions,
  ) {}

  /** Starts the timer (again after a stop). */
  start(): void {
    if (this.timer !== undefined) return;
    if (this.options.runAtStart) this.tick();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    if (this.options.unref) this.timer.unref();
  }

  /** Stops the timer and waits for the run in hand, if any. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private tick(): void {
    if (this.inFlight) return;
    this.inFlight = (async () => {
      try {
        await this.run();
      } catch (error) {
        this.options.onError?.(error);
      } finally {
        this.inFlight = undefined;
      }
    })();
  }
}
