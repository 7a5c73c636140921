// The events-per-second quota at the edge: takes a request's events from its account's token bucket in
// Redis (shared by every ingress process) before they are enqueued. Requests of one event-loop turn share
// one script call per account, and every call of the turn leaves in one write per node.
import { corkMasters, type RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";

export interface EventRateOptions {
  /** Refill rate of each account's bucket. */
  eventsPerSecond: number;
  /** Size of each account's bucket: what an idle account may send at once. */
  eventBurst: number;
}

interface Ask {
  events: number;
  resolve(granted: number): void;
}

export class EventRateLimiter {
  private readonly scripts: Scripts<{ "take-events": number[] }>;
  private readonly pending = new Map<string, Ask[]>();
  private flushScheduled = false;

  /** `redis` is the enqueue's connection: fails fast when Redis is down, and times out at the enqueue's deadline. */
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly options: EventRateOptions,
  ) {
    this.scripts = new Scripts(redis, new URL("./lua/", import.meta.url), ["take-events"]);
  }

  /**
   * How many of `events` the account may send now (always the first ones of the request). A bucket that
   * cannot be asked grants them all: the enqueue that follows then fails them as it would anyway, so the
   * quota never turns a Redis fault into a different answer.
   */
  take(accountId: string, events: number): Promise<number> {
    return new Promise((resolve) => {
      let asks = this.pending.get(accountId);
      if (!asks) {
        asks = [];
        this.pending.set(accountId, asks);
      }
      asks.push({ events, resolve });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After the poll phase: every request read in this turn has asked by then.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const pending = [...this.pending];
    this.pending.clear();
    const uncork = corkMasters(this.redis);
    try {
      for (const [accountId, asks] of pending) void this.call(accountId, asks);
    } finally {
      uncork();
    }
  }

  private async call(accountId: string, asks: Ask[]): Promise<void> {
    const args: number[] = [this.options.eventsPerSecond, this.options.eventBurst];
    for (const ask of asks) args.push(ask.events);
    let granted: number[] | undefined;
    try {
      granted = await this.scripts.run("take-events", [this.keys.eventBucket(accountId)], args);
    } catch {
      granted = undefined;
    }
    asks.forEach((ask, i) => ask.resolve(granted?.[i] ?? ask.events));
  }
}
