// The process around the ingress: operations port, refusal of an evicting Redis or of another shard count,
// NOSCRIPT recovery.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVerdict } from "../../src/app.js";
import { masters } from "../../src/redis/client.js";
import { UnsafeRedisError } from "../../src/redis/eviction-guard.js";
import { ShardCountMismatchError } from "../../src/streams/shard-count-guard.js";
import { Keys } from "../../src/redis/keys.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { post, startPrivateRedis, startTestApp, testOptions, type TestApp } from "./support.js";

describe.each(DEPLOYMENTS)("app (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(() => t.app.stop());

  it("serves /healthz, /readyz and /metrics on the metrics port", async () => {
    await post(t.base, "/v1/events", t.token, { outcome_key: "o", action: "counted" });
    const ops = `http://127.0.0.1:${t.app.metricsPort}`;
    expect((await fetch(`${ops}/healthz`)).status).toBe(200);
    const ready = await fetch(`${ops}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, failing: [] });
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    expect(metrics).toContain('verdict_http_requests_total{route="/v1/events",method="POST",status="202"} 1');
    expect(metrics).toContain('verdict_events_total{result="accepted"} 1');
    expect(metrics).toContain("verdict_enqueue_seconds_bucket");
  });

  it("refuses to join a deployment under another shard count, and rejoins it under the same one", async () => {
    const { keyPrefix, shards } = t.options;
    const other = startVerdict(testOptions(deployment, { keyPrefix, shards: shards * 2 }), { logger: silentLogger });
    await expect(other).rejects.toBeInstanceOf(ShardCountMismatchError);
    await expect(other).rejects.toThrow(`of ${shards} shards, but VERDICT_SHARDS is ${shards * 2}`);
    const same = await startVerdict(testOptions(deployment, { keyPrefix, shards }), { logger: silentLogger });
    await same.stop();
  });

  it("refuses data from before the shard count was recorded when a stream lies past the count", async () => {
    const options = testOptions(deployment);
    const keys = new Keys(options.keyPrefix);
    await t.app.redis.xadd(keys.stream(options.shards), "*", "e", "old");
    await expect(startVerdict(options, { logger: silentLogger })).rejects.toThrow(
      `written with more than ${options.shards} shards`,
    );
    expect(await t.app.redis.get(keys.shardCount())).toBeNull();
  });

  it("recovers when Redis forgets its scripts (NOSCRIPT)", async () => {
    expect((await post(t.base, "/v1/events", t.token, { outcome_key: "o", action: "before" })).status).toBe(202);
    await Promise.all(masters(t.app.redis).map((node) => node.script("FLUSH")));
    expect((await post(t.base, "/v1/events", t.token, { outcome_key: "o", action: "after" })).status).toBe(202);
    const batch = await post(t.base, "/v1/events/batch", t.token, {
      events: [{ outcome_key: "o", action: "batched" }],
    });
    expect(batch.body).toEqual({ accepted: 1, failed: [], duplicates: [] });
  });
});

describe("app on an unsafe Redis", () => {
  it("refuses to start when maxmemory-policy is not noeviction", async () => {
    const redis = await startPrivateRedis(["--maxmemory-policy", "allkeys-lru"]);
    try {
      const options = { ...testOptions("standalone"), redis: { kind: "standalone" as const, url: redis.url } };
      await expect(startVerdict(options, { logger: silentLogger })).rejects.toBeInstanceOf(UnsafeRedisError);
    } finally {
      await redis.cleanup();
    }
  });
});
