// A worker whose shard was taken over may still have reads on their way to Redis: a connection that comes
// back from a partition before the one its renewals use, or a call held in TCP's retransmissions. Such a read
// must take nothing: entries it took would sit in its pending list, where the new owner, which claimed the
// earlier owners' pending entries when it took over, never looks; their events, answered 202, would never
// be applied. Here a stale owner of the shard keeps reading (and claiming) while events arrive, through the
// same ShardReader a worker's actor uses, with an earlier lease of the shard.
import { afterAll, describe, expect, it } from "vitest";
import { ShardReader } from "../../src/actors/shard-reader.js";
import { Scripts } from "../../src/redis/scripts.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { connectTo, DEPLOYMENTS } from "../support/redis.js";
import type { RedisClient } from "../../src/redis/client.js";

const EVENTS = 60;

describe.each(DEPLOYMENTS)("reads by a worker that lost its shard (%s)", (deployment) => {
  const apps: TestApp[] = [];
  const clients: RedisClient[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    for (const client of clients) client.disconnect();
  });

  it("take no entries from the new owner, which applies every event once, in order", async () => {
    const t = await startTestApp(deployment, { shards: 1 });
    apps.push(t);
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "never" })).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "o", task_key: "t" })).status).toBe(201);

    const keys = t.app.keys;
    const client = await connectTo(deployment);
    const reader = await connectTo(deployment);
    clients.push(client, reader);
    const owner = await eventually(async () => (await client.get(keys.lease(0))) ?? undefined, 10_000, "the shard owned");
    const token = Number(owner.split(":").at(-1));
    const stale = new ShardReader({
      reader,
      client,
      scripts: new Scripts(client, new URL("../../src/actors/lua/", import.meta.url), ["read-entries", "claim-orphans"] as const),
      keys,
      shard: 0,
      // The lease it held before the current owner took the shard over (any earlier token).
      leaseValue: `stale-worker:${token - 1}`,
      workerId: "stale-worker",
      blockMs: 50,
    });

    let reading = true;
    const replies: unknown[] = [];
    const staleLoop = (async () => {
      while (reading) {
        replies.push(await stale.fresh(100), await stale.pending(100), await stale.claimOrphans());
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    for (let value = 0; value < EVENTS; value++) {
      expect((await t.request("POST", "/v1/events", { outcome_key: "o", action: "step", properties: { value } })).status).toBe(202);
    }
    const values = await eventually(
      async () => {
        const reply = await t.request("GET", "/v1/outcomes/o/events?limit=1000");
        const got = (reply.body as { events: { properties: { value: number } }[] }).events.map((e) => e.properties.value);
        return got.length >= EVENTS ? got : undefined;
      },
      10_000,
      "every event applied",
    );
    reading = false;
    await staleLoop;

    expect(values).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
    expect(new Set(replies)).toEqual(new Set(["lease-lost", false]));
    const consumers = (await client.xinfo("CONSUMERS", keys.stream(0), "verdict")) as unknown[][];
    expect(consumers.map((fields) => String(fields[1]))).not.toContain("stale-worker");
  });
});
