// The operational metrics of issue 19 on a live app: per-shard lag and dead-letter queue size (sampled by
// each shard's owner), lease moves, snapshot sizes, script calls by name and each Redis master's memory;
// and readShardLag itself against streams in known states.
import { AggregatorRegistry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readShardLag } from "../../src/actors/shard-lag.js";
import { CONSUMER_GROUP } from "../../src/actors/consumer-group.js";
import { Keys } from "../../src/redis/keys.js";
import { createMetrics } from "../../src/telemetry/metrics.js";
import type { RedisClient } from "../../src/redis/client.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(metricsPort: number): Promise<Sample[]> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const named = (samples: Sample[], name: string): Sample[] => samples.filter((s) => s.name === name);
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  named(samples, name)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

const SHARDS = 4;

describe.each(DEPLOYMENTS)("operational metrics (%s)", (deployment) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(deployment, { shards: SHARDS });
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "COUNT(step)>=100" })).status).toBe(201);
    for (let i = 0; i < 8; i++) {
      expect((await t.request("POST", "/v1/outcomes", { key: `o${i}`, task_key: "t" })).status).toBe(201);
      expect((await t.request("POST", "/v1/events", { outcome_key: `o${i}`, action: "step" })).status).toBe(202);
    }
    // Events for outcomes nobody opened: dead-lettered OUTCOME_NOT_FOUND.
    for (const key of ["ghost-1", "ghost-2", "ghost-3"]) {
      expect((await t.request("POST", "/v1/events", { outcome_key: key, action: "step" })).status).toBe(202);
    }
  }, 30_000);
  afterAll(async () => {
    await t.stop();
  });

  it("reports every owned shard's lag, drained to 0 once the events are applied", async () => {
    const samples = await eventually(
      async () => {
        const now = await scrape(t.app.metricsPort);
        const lag = named(now, "verdict_shard_lag_entries");
        return lag.length === SHARDS &&
          lag.every((s) => s.value === 0) &&
          total(now, "verdict_dead_letter_queue_size") === 3
          ? now
          : undefined;
      },
      30_000,
      "every shard drained, with the 3 dead letters counted",
    );
    expect(
      named(samples, "verdict_shard_lag_entries")
        .map((s) => s.labels.shard)
        .sort(),
    ).toEqual(["0", "1", "2", "3"]);
    expect(named(samples, "verdict_shard_lag_seconds").map((s) => s.value)).toEqual([0, 0, 0, 0]);
    expect(named(samples, "verdict_dead_letter_queue_size")).toHaveLength(SHARDS);
  });

  it("counts lease moves, snapshot sizes and script calls by name", async () => {
    const samples = await scrape(t.app.metricsPort);
    expect(total(samples, "verdict_lease_moves_total", { change: "acquired" })).toBe(SHARDS);
    expect(total(samples, "verdict_lease_moves_total", { change: "lost" })).toBe(0);
    // Every opened outcome was written at least when its event applied; snapshots are at least tens of bytes.
    expect(total(samples, "verdict_snapshot_bytes_count")).toBeGreaterThanOrEqual(8);
    expect(
      total(samples, "verdict_snapshot_bytes_sum") / total(samples, "verdict_snapshot_bytes_count"),
    ).toBeGreaterThan(20);
    expect(total(samples, "verdict_redis_script_calls_total", { script: "enqueue" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "verdict_redis_script_calls_total", { script: "open-outcome" })).toBe(8);
    expect(total(samples, "verdict_redis_script_calls_total", { script: "put-record" })).toBe(1);
    expect(total(samples, "verdict_redis_script_calls_total", { script: "lease-acquire" })).toBeGreaterThanOrEqual(
      SHARDS,
    );
    expect(total(samples, "verdict_redis_script_calls_total", { script: "commit" })).toBeGreaterThanOrEqual(1);
  });

  it("samples the memory of every Redis master", async () => {
    const samples = await eventually(
      async () => {
        const now = await scrape(t.app.metricsPort);
        return named(now, "verdict_redis_used_memory_bytes").length > 0 ? now : undefined;
      },
      15_000,
      "a memory sample",
    );
    const used = named(samples, "verdict_redis_used_memory_bytes");
    expect(used).toHaveLength(deployment === "cluster" ? 3 : 1);
    for (const sample of used) {
      expect(sample.labels.node).toMatch(/^[\w.-]+:\d+$/);
      expect(sample.value).toBeGreaterThan(100_000);
    }
    // The test servers set no limit: maxmemory 0, one series per node.
    expect(
      named(samples, "verdict_redis_maxmemory_bytes")
        .map((s) => [s.labels.node, s.value])
        .sort(),
    ).toEqual(used.map((s) => [s.labels.node, 0]).sort());
  });
});

describe.each(DEPLOYMENTS)("readShardLag (%s)", (deployment) => {
  let client: RedisClient;
  let keys: Keys;

  beforeAll(async () => {
    client = await connectTo(deployment);
    keys = new Keys(uniquePrefix());
  });
  afterAll(() => {
    client.disconnect();
  });

  it("reads nothing for a shard without a stream or group", async () => {
    expect(await readShardLag(client, keys, 0, Date.now())).toEqual({ entries: 0, oldestSeconds: 0, deadLetters: 0 });
  });

  it("counts undelivered and pending entries, and ages the oldest of them by its id's time", async () => {
    const stream = keys.stream(1);
    await client.xgroup("CREATE", stream, CONSUMER_GROUP, "0", "MKSTREAM");
    const now = Date.now();
    for (const [i, age] of [30_000, 20_000, 10_000].entries()) await client.xadd(stream, `${now - age}-${i}`, "d", "x");

    expect(await readShardLag(client, keys, 1, now)).toEqual({ entries: 3, oldestSeconds: 30, deadLetters: 0 });
    // Delivered but not acknowledged: still not committed, still the oldest.
    const read = (await client.xreadgroup("GROUP", CONSUMER_GROUP, "c", "COUNT", 2, "STREAMS", stream, ">")) as [
      string,
      [string, string[]][],
    ][];
    const delivered = read[0]![1].map(([id]) => id);
    expect(await readShardLag(client, keys, 1, now)).toEqual({ entries: 3, oldestSeconds: 30, deadLetters: 0 });
    await client.xack(stream, CONSUMER_GROUP, delivered[0]!);
    expect(await readShardLag(client, keys, 1, now)).toEqual({ entries: 2, oldestSeconds: 20, deadLetters: 0 });
    // Nothing pending: the oldest is the first entry not yet delivered.
    await client.xack(stream, CONSUMER_GROUP, delivered[1]!);
    expect(await readShardLag(client, keys, 1, now)).toEqual({ entries: 1, oldestSeconds: 10, deadLetters: 0 });
  });

  it("sums the dead-letter streams of every account listed for the shard", async () => {
    for (const [account, n] of [
      ["a1", 2],
      ["a2", 3],
    ] as const) {
      for (let i = 0; i < n; i++) await client.xadd(keys.deadLetters(2, account), "*", "d", "x");
      await client.zadd(keys.deadLetterAccounts(2), "NX", 0, account);
    }
    expect((await readShardLag(client, keys, 2, Date.now())).deadLetters).toBe(5);
  });
});

describe("Redis memory gauges under the supervisor", () => {
  it("keep one value per node when children's metrics are aggregated, not their sum", async () => {
    // Two children sampled the same node a moment apart (src/supervisor/supervisor.ts aggregates this way).
    const children = [createMetrics(), createMetrics()];
    children[0]!.redisUsedMemory.set({ node: "n:1" }, 1000);
    children[1]!.redisUsedMemory.set({ node: "n:1" }, 1200);
    for (const child of children) child.redisMaxMemory.set({ node: "n:1" }, 4000);
    const text = await AggregatorRegistry.aggregate(
      await Promise.all(children.map((c) => c.registry.getMetricsAsJSON())),
    ).metrics();
    expect(text).toContain('verdict_redis_used_memory_bytes{node="n:1"} 1200');
    expect(text).toContain('verdict_redis_maxmemory_bytes{node="n:1"} 4000');
  });
});
