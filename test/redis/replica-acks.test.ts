// VERDICT_REPLICA_ACKS=1 on a Redis with replicas: an event is answered 202 only once the replica of the
// master that owns its shard holds it; with that one replica paused the answer is 503 QUEUE_UNCONFIRMED
// (on a cluster, while the other masters' replicas run: the WAIT goes to the right node), and a token
// rotation is refused rather than handed out unreplicated.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Accounts } from "../../src/accounts/accounts.js";
import { shardOf } from "../../src/streams/shard.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { startReplicatedRedis, type ReplicatedRedis } from "../support/replicated-redis.js";

describe.each(["standalone", "cluster"] as const)("replica acknowledgements (%s)", (kind) => {
  let redis: ReplicatedRedis;
  let t: TestApp;

  beforeAll(async () => {
    redis = await startReplicatedRedis(kind);
    const endpoint = redis.endpoint;
    const target =
      endpoint.kind === "cluster"
        ? { kind: "cluster" as const, nodes: endpoint.nodes }
        : { kind: "standalone" as const, url: endpoint.kind === "standalone" ? endpoint.url : "" };
    t = await startTestApp("standalone", { redis: target, replicaAcks: 1, enqueueTimeoutMs: 1000, shards: 4 });
    expect((await t.request("PUT", "/v1/tasks/acked", { name: "acked", condition: "never" })).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "o", task_key: "acked" })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    for (const port of redis?.replicas() ?? []) redis.resume(port);
    await t?.stop();
    await redis?.stop();
  });

  const stream = (): string => t.app.keys.stream(shardOf(t.accountId, "o", t.options.shards));

  async function onReplica(port: number, read: (replica: Redis) => Promise<number>): Promise<number> {
    const replica = new Redis({ port, host: "127.0.0.1", lazyConnect: true });
    try {
      await replica.connect();
      if (kind === "cluster") await replica.call("READONLY");
      return await read(replica);
    } finally {
      replica.disconnect();
    }
  }

  it("answers 202 only once the shard's replica holds the event", async () => {
    expect((await t.request("POST", "/v1/events", { outcome_key: "o", action: "a" })).status).toBe(202);
    // Read at once, no waiting: the WAIT before the answer is what put it there.
    for (const port of redis.replicasOf(stream()))
      expect(await onReplica(port, (r) => r.xlen(stream()))).toBeGreaterThan(0);
  });

  it("answers 503 QUEUE_UNCONFIRMED while that replica cannot acknowledge, and 202 again once it can", async () => {
    const replicas = redis.replicasOf(stream());
    for (const port of replicas) redis.pause(port);
    try {
      const started = Date.now();
      const reply = await t.request("POST", "/v1/events", { outcome_key: "o", action: "b", idempotency_key: "b-1" });
      expect(reply.status).toBe(503);
      expect((reply.body as { error: { code: string } }).error.code).toBe("QUEUE_UNCONFIRMED");
      expect(reply.headers.get("retry-after")).toBe("1");
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      for (const port of replicas) redis.resume(port);
    }
    // The retry with the same idempotency key is safe: the first attempt may be in the stream already.
    const retry = await t.request("POST", "/v1/events", { outcome_key: "o", action: "b", idempotency_key: "b-1" });
    expect(retry.status).toBe(202);
  });

  it("refuses a token rotation its replica did not acknowledge", async () => {
    const accounts = new Accounts(t.app.redis, t.app.keys, t.options.tokenSecret, 1);
    const replicas = redis.replicasOf(t.app.keys.tokenGenerations());
    for (const port of replicas) redis.pause(port);
    try {
      await expect(accounts.rotate(t.accountId)).rejects.toThrow(/not acknowledged by 1 replica/);
    } finally {
      for (const port of replicas) redis.resume(port);
    }
    // The resumed replica catches up first (a loaded machine may take a moment); then a rotation goes through.
    const rotated = await eventually(
      () => accounts.rotate(t.accountId).catch(() => undefined),
      20_000,
      "a rotation once the replica is back",
    );
    expect((await t.request("GET", "/v1/tasks/acked", undefined, rotated.token)).status).toBe(200);
  }, 40_000);
});
