// One account's GET /v1/insights requests run VERDICT_QUOTA_INSIGHT_READS at a time per ingress process, a
// few more wait their turn, and any beyond them is 429 QUOTA_EXCEEDED naming the quota, at once: reads held up
// by a busy Redis cannot pile up. Another account's read still runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WAITING_PER_SLOT } from "../../src/api/account-read-slots.js";
import { connectRedis, type RedisClient } from "../../src/redis/client.js";
import { startTestApp, TEST_QUOTAS, type TestApp } from "../support/app.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

// Spins inside Redis for ARGV[1] ms: every other client's command waits meanwhile (under the liveness
// probe's 800 ms, so the service does not call Redis down).
const BUSY =
  "local t = redis.call('TIME'); local stop = t[1] * 1000 + t[2] / 1000 + tonumber(ARGV[1]); repeat t = redis.call('TIME') until t[1] * 1000 + t[2] / 1000 >= stop; return 1";
const SLOTS = 2;
const PATH = "/v1/insights?group_by=task";

describe("insight reads per account", () => {
  let redis: PrivateRedis;
  let busy: RedisClient;
  let t: TestApp;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    busy = connectRedis({ kind: "standalone", url: redis.url });
    t = await startTestApp("standalone", {
      redis: { kind: "standalone", url: redis.url },
      quotas: { ...TEST_QUOTAS, insightReads: SLOTS },
    });
  });
  afterAll(async () => {
    await t?.stop();
    busy?.disconnect();
    await redis?.cleanup();
  });

  it(`runs ${SLOTS} at once, queues ${SLOTS * WAITING_PER_SLOT} and refuses the next with 429`, async () => {
    const other = await t.newAccount();
    // Both tokens known to the ingress before Redis is made to wait.
    expect((await t.request("GET", PATH)).status).toBe(200);
    expect((await t.request("GET", PATH, undefined, other.token)).status).toBe(200);
    const spinning = busy.eval(BUSY, 0, 600);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const held = Array.from({ length: SLOTS + SLOTS * WAITING_PER_SLOT }, () => t.request("GET", PATH));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await t.request("GET", PATH);
    const otherRead = t.request("GET", PATH, undefined, other.token);
    await spinning;
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({ error: { code: "QUOTA_EXCEEDED", quota: "insight_reads", limit: SLOTS } });
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual(held.map(() => 200));
    expect((await otherRead).status).toBe(200);
  });
});
