// The shape every mover shares: a pass on a timer over the shards this worker owns, each shard moving page by
// page, a failing shard counted and logged while the others go on, and a stop that ends a pass after the page
// in hand instead of draining a backlog. What a page is and where it goes is the mover's own.
import type { Counter } from "prom-client";
import { Periodic } from "../runtime/periodic.js";
import type { Logger } from "../telemetry/logger.js";

export interface MoverOptions {
  /** Between passes. */
  intervalMs: number;
  logger: Logger;
  /** Counts shard passes that failed. */
  errors: Counter;
  /** Logged when a shard's pass fails: what failed and what still holds the data. */
  failure: string;
}

/** What a page's move may ask for: the next page (as saying nothing does), or the end of this shard's pass. */
export type PageOutcome = "next" | "stop";

export abstract class Mover {
  /** Set by stop: a pass in progress ends after the page in hand. */
  protected stopping = false;
  private readonly passes: Periodic;

  protected constructor(private readonly mover: MoverOptions) {
    this.passes = new Periodic(() => this.pass(), { intervalMs: mover.intervalMs });
  }

  /** One pass over the owned shards. */
  abstract pass(): Promise<unknown>;

  start(): void {
    this.passes.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.passes.stop();
  }

  /** Runs `move` on every shard at once (each waits on PostgreSQL or Redis); a failed shard gives `failed`. */
  protected async eachShard<S extends number | { shard: number }, T>(
    shards: readonly S[],
    move: (shard: S) => Promise<T>,
    failed: T,
  ): Promise<T[]> {
    return await Promise.all(
      shards.map(async (shard) => {
        try {
          return await move(shard);
        } catch (error) {
          this.mover.errors.inc();
          this.mover.logger.warn(
            { err: error, shard: typeof shard === "number" ? shard : shard.shard },
            this.mover.failure,
          );
          return failed;
        }
      }),
    );
  }

  /**
   * Reads and moves pages until a page is empty or short, the move says stop, or the mover is stopping;
   * true when it ended on an empty page, so nothing was left to read.
   */
  protected async pageByPage<T>(
    size: number,
    read: () => Promise<readonly T[]>,
    move: (page: readonly T[]) => Promise<PageOutcome | void>,
  ): Promise<boolean> {
    for (;;) {
      const page = await read();
      if (page.length === 0) return true;
      if ((await move(page)) === "stop" || page.length < size || this.stopping) return false;
    }
  }
}
