// Owns the order a process's parts stop in: each part says what stops it as soon as it has started, and
// stop undoes everything newest first, once. A stop that fails is logged and the rest still stop.
import type { Logger } from "../telemetry/logger.js";

export type Stopper = () => unknown;

export class Lifecycle {
  private readonly stoppers: Stopper[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** Registers what undoes something just started; it runs before everything registered earlier. */
  onStop(stop: Stopper): void {
    this.stoppers.push(stop);
  }

  /** Runs the start; when it throws, what it had started is stopped before the error goes on. */
  async starting<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.stopAll();
      throw error;
    }
  }

  /** Stops everything registered, newest first; calling it again waits for the same stop. */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    for (const stop of this.stoppers.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        this.logger.warn({ err: error }, "error while stopping");
      }
    }
  }
}
