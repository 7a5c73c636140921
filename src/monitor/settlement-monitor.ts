// The settlement monitor: a node-cron tick every second asks each owned shard to make the verdicts that are
// due (settles_at reached, IDLE windows elapsed). The shard's due-time index keeps a tick to what is due.
import cron, { type ScheduledTask } from "node-cron";
import { Counter, type Registry } from "prom-client";
import type { Logger } from "../telemetry/logger.js";

export interface Tickable {
  requestTick(): void;
}

export class SettlementMonitor {
  private task: ScheduledTask | undefined;
  private readonly missed: Counter;

  constructor(
    private readonly target: Tickable,
    registry: Registry,
    private readonly logger: Logger,
  ) {
    this.missed = new Counter({
      name: "verdict_monitor_ticks_missed_total",
      help: "Settlement ticks node-cron skipped because the event loop was busy past the tick (the next tick makes what was due)",
      registers: [registry],
    });
  }

  start(): void {
    // Six fields: the first is seconds. node-cron's own logger writes unstructured, coloured lines to the
    // console: what it has to say goes through pino here, and a tick missed under load (harmless: the next
    // one makes every verdict due by then, at most a second late) is counted rather than printed each time.
    const task = cron.schedule("* * * * * *", () => this.target.requestTick(), {
      name: "verdict-settlement",
      logger: {
        info: (message: string) => this.logger.info({ component: "node-cron" }, message),
        warn: (message: string) => this.logger.warn({ component: "node-cron" }, message),
        error: (message: string | Error, err?: Error) =>
          this.logger.error({ component: "node-cron", err: err ?? message }, String(message)),
        debug: (message: string | Error) => this.logger.debug({ component: "node-cron" }, String(message)),
      },
    });
    task.on("execution:missed", () => this.missed.inc());
    this.task = task;
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
  }
}
