// Worker membership: a sorted set of worker ids scored by heartbeat expiry; a worker that stops
// heartbeating (killed, partitioned) drops out after one lease lifetime.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";

export class Membership {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly workerId: string,
    private readonly ttlMs: number,
  ) {}

  /** Renews this worker's membership and returns every live worker, this one included. */
  async heartbeat(): Promise<string[]> {
    const key = this.keys.workers();
    const now = Date.now();
    await this.client.zadd(key, now + this.ttlMs, this.workerId);
    await this.client.zremrangebyscore(key, "-inf", now);
    return this.client.zrangebyscore(key, now, "+inf");
  }

  async leave(): Promise<void> {
    await this.client.zrem(this.keys.workers(), this.workerId);
  }
}
