// The events-per-second quota's leases against a real Redis: an account within its rate is granted from
// tokens the process took ahead (one script call, not one per request), the grants of every process still
// come out of the one bucket, and a request that must ask Redis is not overtaken by a later one of its
// account that a lease could serve.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventRateLimiter } from "../../src/ingress/event-rate.js";
import type { RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { connectTo, endpointOf, uniquePrefix } from "../support/redis.js";

describe("event rate leases (standalone)", () => {
  let client: RedisClient;
  /** Watches the commands Redis runs (MONITOR), a standalone server's only. */
  let watcher: Redis;
  const keys = new Keys(uniquePrefix());

  beforeAll(async () => {
    client = await connectTo("standalone");
    const endpoint = endpointOf("standalone");
    if (endpoint.kind !== "standalone") throw new Error("a standalone Redis expected");
    watcher = new Redis(endpoint.url);
  });
  afterAll(() => {
    client?.disconnect();
    watcher?.disconnect();
  });

  const account = (): string => `acct-${randomBytes(4).toString("hex")}`;

  it("grants an account within its rate from its lease: one script call for fifty requests", async () => {
    // A lease of 100 (a tenth of a second of the rate).
    const limiter = new EventRateLimiter(client, keys, { eventsPerSecond: 1000, eventBurst: 2000 });
    const accountId = account();
    const bucket = keys.eventBucket(accountId);
    const monitor = await watcher.monitor();
    let calls = 0;
    monitor.on("monitor", (_time: string, args: readonly string[]) => {
      if (args[0]?.toLowerCase() === "evalsha" && args.includes(bucket)) calls++;
    });
    const granted: number[] = [];
    for (let i = 0; i < 50; i++) granted.push(await limiter.take(accountId, 1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    monitor.disconnect();
    expect(granted.every((n) => n === 1)).toBe(true);
    // The first request's call, and a top-up at most (the lease past half its life on a slow machine).
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
  });

  it("takes every process's grants from the one bucket", async () => {
    const options = { eventsPerSecond: 100, eventBurst: 100 };
    const processes = [new EventRateLimiter(client, keys, options), new EventRateLimiter(client, keys, options)];
    const accountId = account();
    const started = performance.now();
    const totals = await Promise.all(
      processes.map(async (limiter) => {
        let total = 0;
        for (let i = 0; i < 150; i++) total += await limiter.take(accountId, 1);
        return total;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const granted = totals[0]! + totals[1]!;
    expect(granted).toBeLessThanOrEqual(options.eventBurst + Math.ceil(seconds * options.eventsPerSecond));
    // Each process holds at most a lease (10) unused at the end.
    expect(granted).toBeGreaterThanOrEqual(options.eventBurst - 20);
  });

  it("never refuses unread a request the lease could serve, after a request was cut", async () => {
    // A lease of 10.
    const limiter = new EventRateLimiter(client, keys, { eventsPerSecond: 100, eventBurst: 100 });
    const accountId = account();
    expect(await limiter.take(accountId, 1)).toBe(1);
    // Past what the bucket holds: cut, so the process remembers the account dry.
    expect(await limiter.take(accountId, 200)).toBeLessThan(200);
    expect(limiter.refuses(accountId, 5)).toBe(false);
    expect(limiter.refuses(accountId, 50)).toBe(true);
    expect(await limiter.take(accountId, 5)).toBe(5);
  });

  it("keeps an account's grants in arrival order when one must ask Redis", async () => {
    const limiter = new EventRateLimiter(client, keys, { eventsPerSecond: 1000, eventBurst: 2000 });
    const accountId = account();
    expect(await limiter.take(accountId, 1)).toBe(1);
    const order: string[] = [];
    // More than the lease holds: asks Redis. The next fits the lease, but comes after it.
    const large = limiter.take(accountId, 500).then((n) => order.push(`large ${n}`));
    const small = limiter.take(accountId, 1).then((n) => order.push(`small ${n}`));
    await Promise.all([large, small]);
    expect(order).toEqual(["large 500", "small 1"]);
  });
});
