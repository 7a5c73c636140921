// The events-per-second quota at the edge: takes a request's events from its account's token bucket in
// Redis (shared by every ingress process) before they are enqueued. Requests of one event-loop turn share
// one script call per account, and every call of the turn leaves in one write per node. An account whose
// request was cut short is refused before its next requests' bodies are read, until its bucket can hold
// them again: a flood past the rate costs the edge its requests' heads, not their parsing. An account within
// its rate is granted from tokens this process took ahead (rate-leases.ts), topped up beside its requests.
import { corkMasters, type RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";
import { RateLeases } from "./rate-leases.js";

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

/** An account whose last call cut a request short: the bucket's state as that call found it. */
interface Dry {
  /** Tokens the bucket held after the call. */
  tokens: number;
  /** When the call was sent (performance.now()): the bucket has refilled at most since then. */
  sentAt: number;
  /** Events of the largest request the call cut, at most a second of the rate. */
  need: number;
}

/** Accounts remembered dry beyond this many are forgotten once a second has refilled their need. */
const DRY_SWEEP_SIZE = 1024;
/**
 * A lease holds a tenth of a second of the account's rate (none below 10 a second, where a test or a tiny
 * quota counts single tokens), and lapses a second after its last top-up.
 */
const LEASE_SECONDS = 0.1;
const LEASE_TTL_MS = 1000;

export class EventRateLimiter {
  private readonly scripts: Scripts<{ "take-events": number[] }>;
  /** Asks of the next call by account; an empty list is a lease's top-up alone. */
  private readonly pending = new Map<string, Ask[]>();
  /** Accounts with asks queued or in flight: their later requests wait their turn rather than use a lease. */
  private readonly asking = new Map<string, number>();
  private readonly dry = new Map<string, Dry>();
  private readonly leases: RateLeases;
  private flushScheduled = false;

  /** `redis` is the enqueue's connection: fails fast when Redis is down, and times out at the enqueue's deadline. */
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly options: EventRateOptions,
  ) {
    this.scripts = new Scripts(redis, new URL("./lua/", import.meta.url), ["take-events"]);
    const leaseSize = Math.min(options.eventBurst, Math.floor(options.eventsPerSecond * LEASE_SECONDS));
    this.leases = new RateLeases(leaseSize >= 1 ? leaseSize : 0, LEASE_TTL_MS);
  }

  /**
   * How many of `events` the account may send now (always the first ones of the request). A bucket that
   * cannot be asked grants them all: the enqueue that follows then fails them as it would anyway, so the
   * quota never turns a Redis fault into a different answer.
   */
  take(accountId: string, events: number): Promise<number> {
    const now = performance.now();
    // Not while an earlier request of the account waits on Redis: grants, and so enqueues, keep arrival order.
    if (!this.asking.has(accountId) && this.leases.take(accountId, events, now)) {
      if (this.leases.low(accountId, now)) this.queue(accountId);
      return Promise.resolve(events);
    }
    this.asking.set(accountId, (this.asking.get(accountId) ?? 0) + 1);
    return new Promise((resolve) => this.queue(accountId).push({ events, resolve }));
  }

  /** The account's asks in the next call (a call is made for it even with none: a lease's top-up). */
  private queue(accountId: string): Ask[] {
    let asks = this.pending.get(accountId);
    if (!asks) {
      asks = [];
      this.pending.set(accountId, asks);
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // After the poll phase: every request read in this turn has asked by then.
      setImmediate(() => this.flush());
    }
    return asks;
  }

  /**
   * Whether the account's next request is refused for its rate without asking Redis (nor reading its body):
   * its last call cut a request short, and the bucket cannot have refilled to `events` since (without
   * `events`, a batch whose size is unknown yet: the size of the request cut, at most a second of the rate).
   * The bucket's tokens then plus the refill since the call was sent bound what it holds now from above,
   * whatever other ingress processes took meanwhile, so a refusal here is one Redis would make as well; a
   * request this process's lease could serve is never refused.
   */
  refuses(accountId: string, events?: number): boolean {
    const dry = this.dry.get(accountId);
    if (!dry) return false;
    if (events !== undefined && this.leases.holds(accountId, events, performance.now())) return false;
    const most = Math.min(
      this.options.eventBurst,
      dry.tokens + ((performance.now() - dry.sentAt) * this.options.eventsPerSecond) / 1000,
    );
    if (most >= dry.need) {
      this.dry.delete(accountId);
      return false;
    }
    return most < Math.min(events ?? dry.need, this.options.eventBurst);
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
    const sentAt = performance.now();
    // Last, so the requests' asks are served first: a lease takes only what they leave.
    const lease = this.leases.toAsk(accountId, sentAt);
    if (lease > 0) args.push(lease);
    let reply: number[] | undefined;
    try {
      reply = await this.scripts.run("take-events", [this.keys.eventBucket(accountId)], args);
    } catch {
      reply = undefined;
    }
    if (lease > 0)
      this.leases.granted(accountId, Array.isArray(reply) ? Number(reply[asks.length]) : 0, performance.now());
    // A top-up alone cut no request: what the account's requests taught stands.
    if (asks.length === 0) return;
    this.answered(accountId, asks.length);
    let cut = 0;
    asks.forEach((ask, i) => {
      const granted = Array.isArray(reply) ? Number(reply[i] ?? ask.events) : ask.events;
      if (granted < ask.events) cut = Math.max(cut, ask.events);
      ask.resolve(granted);
    });
    const tokens = Array.isArray(reply) ? Number(reply[asks.length + (lease > 0 ? 1 : 0)]) : Number.NaN;
    if (cut === 0 || !Number.isFinite(tokens)) {
      this.dry.delete(accountId);
      return;
    }
    if (this.dry.size >= DRY_SWEEP_SIZE) this.sweep();
    this.dry.set(accountId, { tokens, sentAt, need: Math.min(cut, this.options.eventsPerSecond) });
  }

  private answered(accountId: string, asks: number): void {
    const left = (this.asking.get(accountId) ?? asks) - asks;
    if (left > 0) this.asking.set(accountId, left);
    else this.asking.delete(accountId);
  }

  /** Forgets the accounts whose need a second's refill has covered: they are not dry any more. */
  private sweep(): void {
    const before = performance.now() - 1000;
    for (const [accountId, dry] of this.dry) if (dry.sentAt < before) this.dry.delete(accountId);
  }
}
