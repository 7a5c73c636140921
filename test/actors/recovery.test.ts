// Recovery: verdicts due while every worker was down are made on restart; a flushed script cache does not
// stop work; a worker that lost its lease cannot write; an orphan event's commit leaves the idempotency
// keys of an outcome opened meanwhile alone; a Redis killed and restarted from its append-only file loses
// nothing that was acknowledged.
import { afterAll, describe, expect, it } from "vitest";
import { masters } from "../../src/redis/client.js";
import type { ScriptArg } from "../../src/redis/script-command.js";
import { msgpack } from "../../src/codec/msgpack.js";
import { BatchCommit } from "../../src/actors/batch-commit.js";
import { Scripts } from "../../src/redis/scripts.js";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { Keys } from "../../src/redis/keys.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

async function setUp(t: TestApp, condition: string, extra: Record<string, unknown> = {}): Promise<void> {
  expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition, ...extra })).status).toBe(201);
}

async function statusOf(t: TestApp, key: string): Promise<string> {
  return ((await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as { status: string }).status;
}

async function countOf(t: TestApp, key: string, action: string): Promise<number> {
  const body = (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as {
    observations: Record<string, { count: number }>;
  };
  return body.observations[action]?.count ?? 0;
}

describe.each(DEPLOYMENTS)("recovery (%s)", (deployment) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop().catch(() => undefined)));
  });

  it("makes verdicts that fell due while all workers were stopped", async () => {
    const first = await startTestApp(deployment);
    await setUp(first, "NOT escalated", { settlement_period: "1s" });
    const keys = Array.from({ length: 20 }, (_, i) => `restart:${i}`);
    for (const key of keys) {
      expect((await first.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
      expect((await first.request("POST", "/v1/events", { outcome_key: key, action: i(key) })).status).toBe(202);
    }
    await eventually(async () =>
      (await Promise.all(keys.map((k) => countOf(first, k, i(k))))).every((c) => c === 1) ? true : undefined,
    );
    await first.stop();
    await new Promise((r) => setTimeout(r, 1500));

    const second = await startTestApp(deployment, {
      keyPrefix: first.options.keyPrefix,
      tokenSecret: first.options.tokenSecret,
    });
    apps.push(second);
    const token = first.token;
    await eventually(
      async () => {
        const statuses = await Promise.all(
          keys.map((k) => second.request("GET", `/v1/outcomes/${encodeURIComponent(k)}`, undefined, token)),
        );
        return statuses.every((s) => (s.body as { status: string }).status === "CONFIRMED") ? true : undefined;
      },
      10_000,
      "verdicts after restart",
    );
  });

  it("keeps working after SCRIPT FLUSH (NOSCRIPT is recovered)", async () => {
    const t = await startTestApp(deployment);
    apps.push(t);
    await setUp(t, "never");
    expect((await t.request("POST", "/v1/outcomes", { key: "flush", task_key: "t" })).status).toBe(201);
    for (let round = 0; round < 5; round++) {
      await Promise.all(masters(t.app.redis).map((node) => node.script("FLUSH")));
      const events = Array.from({ length: 20 }, () => ({ outcome_key: "flush", action: "tick" }));
      expect((await t.request("POST", "/v1/events/batch", { events })).status).toBe(202);
    }
    await eventually(async () => ((await countOf(t, "flush", "tick")) === 100 ? true : undefined), 10_000, "100 ticks");
    expect(await statusOf(t, "flush")).toBe("OPEN");
  });

  it("fences out a worker whose shard was taken over, but not one whose lease merely lapsed", async () => {
    const client = await connectTo(deployment);
    try {
      const keys = new Keys(uniquePrefix());
      const scripts = new Scripts<ActorScriptReplies>(client, new URL("../../src/actors/lua/", import.meta.url), [
        "lease-acquire",
        "lease-renew",
        "commit",
      ]);
      const shard = 3;
      const target = keys.outcome(shard, "acct", "o");
      const commitKeys = [
        keys.lease(shard),
        keys.stream(shard),
        keys.due(shard),
        keys.fence(shard),
        keys.lastCommit(shard),
        target,
      ];
      const commit = (lease: string, value: string) =>
        scripts.run("commit", commitKeys, [
          lease,
          "verdict",
          msgpack.pack([["set", 6, value]]),
          msgpack.pack([]),
          `commit-${value}`,
        ]);

      expect(await scripts.run("lease-acquire", [keys.lease(shard), keys.fence(shard)], ["w1", 60_000])).toBe("w1:1");
      // The lease lapses (w1 too busy to renew in time) and nobody takes the shard: w1 may go on.
      await client.del(keys.lease(shard));
      expect(Number(await commit("w1:1", "lapsed"))).toBe(1);
      expect(Number(await scripts.run("lease-renew", [keys.lease(shard), keys.fence(shard)], ["w1:1", 60_000]))).toBe(
        1,
      );
      expect(await client.get(keys.lease(shard))).toBe("w1:1");

      // Now it lapses and w2 takes the shard with a newer token: w1 can neither commit nor renew.
      await client.del(keys.lease(shard));
      expect(await scripts.run("lease-acquire", [keys.lease(shard), keys.fence(shard)], ["w2", 60_000])).toBe("w2:2");
      await client.del(keys.lease(shard)); // even with w2's lease lapsed, the fence has moved on
      expect(Number(await commit("w1:1", "stale"))).toBe(-1);
      expect(Number(await scripts.run("lease-renew", [keys.lease(shard), keys.fence(shard)], ["w1:1", 60_000]))).toBe(
        0,
      );
      expect(await client.get(target)).toBe("lapsed");
      expect(Number(await commit("w2:2", "fresh"))).toBe(1);
      expect(await client.get(target)).toBe("fresh");
    } finally {
      client.disconnect();
    }
  });

  it("writes a commit sent twice (a call re-sent after its connection dropped) once", async () => {
    const client = await connectTo(deployment);
    try {
      const keys = new Keys(uniquePrefix());
      const scripts = new Scripts<ActorScriptReplies>(client, new URL("../../src/actors/lua/", import.meta.url), [
        "lease-acquire",
        "commit",
      ]);
      const shard = 4;
      const lease = (await scripts.run(
        "lease-acquire",
        [keys.lease(shard), keys.fence(shard)],
        ["w1", 60_000],
      )) as string;
      const log = keys.eventLog(shard, "acct", "o");
      const commit = new BatchCommit(
        keys.lease(shard),
        keys.stream(shard),
        keys.due(shard),
        keys.fence(shard),
        keys.lastCommit(shard),
      );
      commit.log(log, Buffer.from("event"));
      const run = (k: readonly string[], a: readonly ScriptArg[]): Promise<number> => scripts.run("commit", k, a);
      expect(await commit.execute(run, lease, "verdict")).toEqual({ ok: true });
      expect(await commit.execute(run, lease, "verdict")).toEqual({ ok: true });
      expect(await client.xlen(log)).toBe(1);
      // The next commit of the shard is a different one: it writes.
      const next = new BatchCommit(
        keys.lease(shard),
        keys.stream(shard),
        keys.due(shard),
        keys.fence(shard),
        keys.lastCommit(shard),
      );
      next.log(log, Buffer.from("next event"));
      expect(await next.execute(run, lease, "verdict")).toEqual({ ok: true });
      expect(await client.xlen(log)).toBe(2);
    } finally {
      client.disconnect();
    }
  });

  it("lets an orphan's idempotency keys expire only while its outcome does not exist when the commit runs", async () => {
    const client = await connectTo(deployment);
    try {
      const keys = new Keys(uniquePrefix());
      const scripts = new Scripts<ActorScriptReplies>(client, new URL("../../src/actors/lua/", import.meta.url), [
        "lease-acquire",
        "commit",
      ]);
      const shard = 5;
      const lease = (await scripts.run(
        "lease-acquire",
        [keys.lease(shard), keys.fence(shard)],
        ["w1", 60_000],
      )) as string;
      const orphanCommit = async (outcomeKey: string): Promise<number> => {
        const commit = new BatchCommit(
          keys.lease(shard),
          keys.stream(shard),
          keys.due(shard),
          keys.fence(shard),
          keys.lastCommit(shard),
        );
        commit.expireOrphan(
          keys.idempotency(shard, "acct", outcomeKey),
          keys.outcome(shard, "acct", outcomeKey),
          60_000,
        );
        const result = await commit.execute((k, a) => scripts.run("commit", k, a), lease, "verdict");
        expect(result).toEqual({ ok: true });
        return client.pttl(keys.idempotency(shard, "acct", outcomeKey));
      };
      // Still missing when the commit runs: its keys expire.
      await client.hset(keys.idempotency(shard, "acct", "missing"), "k1", "1-0");
      expect(await orphanCommit("missing")).toBeGreaterThan(0);
      // Opened between the batch's load and its commit (the outcome exists now): its keys stay.
      await client.hset(keys.idempotency(shard, "acct", "opened"), "k1", "1-0");
      await client.set(keys.outcome(shard, "acct", "opened"), "snapshot");
      expect(await orphanCommit("opened")).toBe(-1);
    } finally {
      client.disconnect();
    }
  });
});

/** One action name per key, so each outcome's event is told apart in the log. */
function i(key: string): string {
  return `step_${key.split(":")[1] ?? "0"}`;
}

describe("redis restart with append-only persistence", () => {
  let redis: PrivateRedis | undefined;
  afterAll(async () => {
    await redis?.cleanup();
  });

  it("loses nothing acknowledged when Redis is killed and restarted", async () => {
    redis = await startPrivateRedis([
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
      "--maxmemory-policy",
      "noeviction",
    ]);
    const t = await startTestApp("standalone", { redis: { kind: "standalone", url: redis.url } });
    try {
      await setUp(t, "never");
      expect((await t.request("POST", "/v1/outcomes", { key: "aof", task_key: "t" })).status).toBe(201);
      let accepted = 0;
      for (let round = 0; round < 10; round++) {
        const events = Array.from({ length: 100 }, (_, n) => ({
          outcome_key: "aof",
          action: "tick",
          properties: { value: round * 100 + n },
        }));
        const reply = await t.request("POST", "/v1/events/batch", { events });
        accepted += (reply.body as { accepted: number }).accepted;
      }
      expect(accepted).toBe(1000);
      // SIGKILL: no shutdown save; only the append-only file brings the data back.
      await redis.kill();
      await redis.restart();
      await eventually(
        async () => ((await countOf(t, "aof", "tick").catch(() => 0)) === 1000 ? true : undefined),
        30_000,
        "1000 ticks after restart",
      );
    } finally {
      await t.stop();
    }
  });
});
