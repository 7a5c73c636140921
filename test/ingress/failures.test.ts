// Queue failures produced for real: a shard over its backlog bound (rejected), a Redis paused past the
// enqueue timeout (unconfirmed), and a Redis that is down; with the per-outcome cascade inside a batch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { masters, type RedisClient } from "../../src/redis/client.js";
import { ENTRY_FIELD } from "../../src/streams/stream-entry.js";
import type { Keys } from "../../src/redis/keys.js";
import { shardOf } from "../../src/streams/shard.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { streamEvents } from "../support/streams.js";
import { Accounts } from "../../src/accounts/accounts.js";
import { startVerdict } from "../../src/app.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { post, startPrivateRedis, startTestApp, testOptions, type TestApp } from "./support.js";

/** `count` outcome keys of the form `${stem}:<n>` that hash to `shard` (or, with `not`, away from it). */
function keysOn(accountId: string, shards: number, stem: string, shard: number, count: number, not = false): string[] {
  const found: string[] = [];
  for (let n = 0; found.length < count; n++) {
    const key = `${stem}:${n}`;
    if ((shardOf(accountId, key, shards) === shard) !== not) found.push(key);
  }
  return found;
}

async function actionsIn(redis: RedisClient, keys: Keys, shard: number): Promise<string[]> {
  return (await streamEvents(redis, keys.stream(shard))).map((e) => e.envelope.action);
}

interface BatchReply {
  accepted: number;
  failed: { index: number; reason: string }[];
  duplicates: number[];
}

describe.each(DEPLOYMENTS)("queue failures (%s)", (deployment) => {
  describe("backlog bound (rejected)", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(deployment, { maxShardBacklog: 3 });
    });
    afterAll(() => t.app.stop());

    it("refuses events for a shard at its bound, fails later events of the same outcome, spares other shards", async () => {
      const full = 5;
      const [x, w] = keysOn(t.accountId, t.options.shards, "full", full, 2) as [string, string];
      const [y] = keysOn(t.accountId, t.options.shards, "free", full, 1, true) as [string];
      for (let i = 0; i < 3; i++) await t.app.redis.xadd(t.app.keys.stream(full), "*", ENTRY_FIELD, "filler");

      const single = await post(t.base, "/v1/events", t.token, { outcome_key: x, action: "single" });
      expect(single.status).toBe(503);
      expect((single.body as { error: { code: string } }).error.code).toBe("QUEUE_REJECTED");
      expect(single.headers.get("retry-after")).toMatch(/^\d+$/);

      const reply = await post(t.base, "/v1/events/batch", t.token, {
        events: [
          { outcome_key: x, action: "x0" },
          { key: y, customer_key: "c", action: "y0" },
          { outcome_key: x, action: "x1", idempotency_key: "i1" },
          { outcome_key: w, action: "w0" },
          { key: y, customer_key: "c", action: "y1" },
        ],
      });
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual<BatchReply>({
        accepted: 2,
        failed: [
          { index: 0, reason: "rejected" },
          { index: 2, reason: "rejected" },
          { index: 3, reason: "rejected" },
        ],
        duplicates: [],
      });
      expect(await t.app.redis.xlen(t.app.keys.stream(full))).toBe(3);
      // A rejected event claimed no idempotency key.
      expect(await t.app.redis.hlen(t.app.keys.idempotency(full, t.accountId, x))).toBe(0);
      const yShard = shardOf(t.accountId, y, t.options.shards);
      expect(await actionsIn(t.app.redis, t.app.keys, yShard)).toEqual(["y0", "y1"]);
    });
  });

  describe("Redis paused past the enqueue timeout (unconfirmed)", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(deployment, { enqueueTimeoutMs: 250 });
    });
    afterAll(() => t.app.stop());

    it("answers unconfirmed for sent calls and rejected for the outcome's later events it never sent", async () => {
      const shard = 9;
      const [x, v] = keysOn(t.accountId, t.options.shards, "paused", shard, 2) as [string, string];
      // The single event goes to another shard, whose stream the assertion below does not read.
      const [lonely] = keysOn(t.accountId, t.options.shards, "lonely", shard, 1, true) as [string];
      const pad = (n: number): { pad: string } => ({ pad: "p".repeat(n) });
      // 1 MiB chunks per shard: x0 fills the first chunk alone, everything after goes in the second.
      const events = [
        { outcome_key: x, action: "x0", properties: pad(700_000), idempotency_key: "x0" },
        { outcome_key: x, action: "x1", properties: pad(400_000) },
        { key: v, customer_key: "c", action: "v0" },
        { outcome_key: x, action: "x2" },
      ];
      const nodes = masters(t.app.redis);
      // Auto-expiring pause, so a failed test cannot leave the shared servers paused.
      await Promise.all(nodes.map((node) => node.call("CLIENT", "PAUSE", "3000", "WRITE")));
      let batch;
      let single;
      try {
        [batch, single] = await Promise.all([
          post(t.base, "/v1/events/batch", t.token, { events }),
          post(t.base, "/v1/events", t.token, { outcome_key: lonely, action: "single", idempotency_key: "s" }),
        ]);
      } finally {
        await Promise.all(nodes.map((node) => node.call("CLIENT", "UNPAUSE")));
      }
      expect(single.status).toBe(503);
      expect((single.body as { error: { code: string } }).error.code).toBe("QUEUE_UNCONFIRMED");
      expect(single.headers.get("retry-after")).toMatch(/^\d+$/);

      expect(batch.status).toBe(202);
      expect(batch.body).toEqual<BatchReply>({
        accepted: 0,
        failed: [
          { index: 0, reason: "unconfirmed" },
          { index: 1, reason: "rejected" },
          { index: 2, reason: "unconfirmed" },
          { index: 3, reason: "rejected" },
        ],
        duplicates: [],
      });
      // The unconfirmed calls were sent and run once Redis resumes; the never-sent events never appear.
      let actions: string[] = [];
      for (let waited = 0; waited < 100 && actions.length < 2; waited++) {
        actions = await actionsIn(t.app.redis, t.app.keys, shard);
        if (actions.length < 2) await new Promise((r) => setTimeout(r, 50));
      }
      expect(actions).toEqual(["x0", "v0"]);
      // A retry of the unconfirmed keyed event is then a safe duplicate.
      const retry = await post(t.base, "/v1/events/batch", t.token, { events: [events[0]] });
      expect(retry.body).toEqual({ accepted: 1, failed: [], duplicates: [0] });
    });
  });
});

describe("Redis down (own standalone server)", () => {
  it("answers 202 with every batch item rejected and 503 QUEUE_REJECTED for a single event", async () => {
    const redis = await startPrivateRedis();
    try {
      const options = { ...testOptions("standalone"), redis: { kind: "standalone" as const, url: redis.url } };
      const app = await startVerdict(options, { logger: silentLogger });
      try {
        const { token } = await new Accounts(app.redis, app.keys, options.tokenSecret).create("down");
        const base = `http://127.0.0.1:${app.port}`;
        expect((await post(base, "/v1/events", token, { outcome_key: "o", action: "up" })).status).toBe(202);
        await redis.kill();
        const single = await post(base, "/v1/events", token, { outcome_key: "o", action: "down" });
        expect(single.status).toBe(503);
        expect((single.body as { error: { code: string } }).error.code).toBe("QUEUE_REJECTED");
        const batch = await post(base, "/v1/events/batch", token, {
          events: [
            { outcome_key: "o", action: "a" },
            { key: "p", customer_key: "c", action: "b" },
            { outcome_key: "q", action: "c" },
          ],
        });
        expect(batch.status).toBe(202);
        expect(batch.body).toEqual({
          accepted: 0,
          failed: [0, 1, 2].map((index) => ({ index, reason: "rejected" })),
          duplicates: [],
        });
      } finally {
        await app.stop();
      }
    } finally {
      await redis.cleanup();
    }
  });
});
