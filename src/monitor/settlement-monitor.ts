// The settlement monitor: a node-cron tick every second asks each owned shard to make the verdicts that are
// due (settles_at reached, IDLE windows elapsed). The shard's due-time index keeps a tick to what is due.
import cron, { type ScheduledTask } from "node-cron";

export interface Tickable {
  requestTick(): void;
}

export class SettlementMonitor {
  private task: ScheduledTask | undefined;

  constructor(private readonly target: Tickable) {}

  start(): void {
    // Six fields: the first is seconds.
    this.task = cron.schedule("* * * * * *", () => this.target.requestTick(), { name: "verdict-settlement" });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
  }
}
