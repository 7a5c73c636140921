// The harness itself: both deployments answer, and the cluster spreads shard tags over its masters.
import { afterAll, describe, expect, it } from "vitest";
import { masters, type RedisClient } from "../../src/redis/client.js";
import { assertNoEviction } from "../../src/redis/eviction-guard.js";
import { Keys } from "../../src/redis/keys.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "./redis.js";

describe.each(DEPLOYMENTS)("redis harness (%s)", (deployment) => {
  const clients: RedisClient[] = [];
  afterAll(() => clients.forEach((c) => c.disconnect()));

  it("serves reads and writes and refuses nothing on noeviction", async () => {
    const client = await connectTo(deployment);
    clients.push(client);
    const keys = new Keys(uniquePrefix());
    await client.xadd(keys.stream(3), "*", "e", "x");
    expect(await client.xlen(keys.stream(3))).toBe(1);
    await expect(assertNoEviction(client)).resolves.toBeUndefined();
    expect(masters(client)).toHaveLength(deployment === "cluster" ? 3 : 1);
  });
});
