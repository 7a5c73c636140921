// The liveness monitor against a real server: up while it answers, down while paused (about a second in)
// or killed, and not fooled by this process being too busy to read the PING's answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, waitReady, type RedisClient } from "../../src/redis/client.js";
import { RedisLiveness } from "../../src/redis/liveness.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("Redis liveness", () => {
  let redis: PrivateRedis;
  let client: RedisClient;
  let liveness: RedisLiveness;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = connectRedis({ kind: "standalone", url: redis.url });
    await waitReady(client);
    liveness = new RedisLiveness(client);
  });
  afterAll(async () => {
    liveness.stop();
    client.disconnect();
    await redis.cleanup();
  });

  it("is up while Redis answers, even when this process stalls with a PING's answer unread", async () => {
    await sleep(500);
    expect(liveness.down).toBe(false);
    let falseAlarm = false;
    const cancel = liveness.onDown(() => (falseAlarm = true));
    // The next PING is sent, then this process is busy for 1.2 s (in the same turn of the event loop,
    // after its poll for I/O): the answer arrives but stays unread until the monitor's own timer has run
    // again, late.
    const ping = client.ping.bind(client);
    let stalled = false;
    client.ping = ((...args: Parameters<typeof ping>) => {
      const answer = ping(...args);
      if (!stalled) {
        stalled = true;
        setImmediate(() => {
          const until = Date.now() + 1200;
          while (Date.now() < until) {
            // Busy.
          }
        });
      }
      return answer;
    }) as typeof client.ping;
    try {
      // Past the stall limit (800 ms) after the stall too: the PING answered late must count as answered,
      // and the PINGs after it go on (a monitor that lost track of it stayed down for good).
      await sleep(3500);
    } finally {
      client.ping = ping;
      cancel();
    }
    expect(stalled).toBe(true);
    expect(falseAlarm).toBe(false);
    expect(liveness.down).toBe(false);
  });

  it("tells a listener while the server is still paused", async () => {
    const other = connectRedis({ kind: "standalone", url: redis.url });
    try {
      await waitReady(other);
      const started = Date.now();
      const noticed = new Promise<number>((resolve) => liveness.onDown(() => resolve(Date.now() - started)));
      await other.call("CLIENT", "PAUSE", "3000", "ALL");
      // About a second in (the 800 ms stall limit and a 200 ms poll) on an idle machine; the bound is the
      // pause itself, since a loaded machine runs timers late (a CI run took 1,199 ms).
      expect(await noticed).toBeLessThan(3000);
      expect(liveness.down).toBe(true);
      await other.call("CLIENT", "UNPAUSE");
    } finally {
      other.disconnect();
    }
  });
});
