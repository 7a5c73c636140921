// A worker whose shard was taken over may still have reads on their way to Redis: a connection that comes
// back from a partition before the one its renewals use, or a call held in TCP's retransmissions. XREADGROUP
// delivers to whoever sends it, so such a read takes entries into the stale worker's pending list, where
// the new owner (which claimed the earlier owners' pending entries when it took over) does not read: their
// events, answered 202, were never applied. The owner now refuses to commit past entries pending under
// another consumer and claims them, also while idle. Here a stale owner keeps reading the shard with a
// plain XREADGROUP, as its reader would, while events arrive; its claims, fenced by its old lease, take
// nothing.
import { afterAll, describe, expect, it } from "vitest";
import { ShardReader } from "../../src/actors/shard-reader.js";
import { Scripts } from "../../src/redis/scripts.js";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { packEnvelope } from "../../src/streams/event-envelope.js";
import { ENTRY_FIELD } from "../../src/streams/stream-entry.js";
import { msgpack } from "../../src/codec/msgpack.js";
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

  it("lose no events: the owner claims what they take and applies every event once, in order", async () => {
    const t = await startTestApp(deployment, { shards: 1 });
    apps.push(t);
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "never" })).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "o", task_key: "t" })).status).toBe(201);

    const keys = t.app.keys;
    const client = await connectTo(deployment);
    const reader = await connectTo(deployment);
    clients.push(client, reader);
    const owner = await eventually(
      async () => (await client.get(keys.lease(0))) ?? undefined,
      10_000,
      "the shard owned",
    );
    const token = Number(owner.split(":").at(-1));
    const stale = new ShardReader({
      reader,
      scripts: new Scripts<ActorScriptReplies>(client, new URL("../../src/actors/lua/", import.meta.url), [
        "claim-orphans",
      ]),
      keys,
      shard: 0,
      // The lease it held before the current owner took the shard over (any earlier token).
      leaseValue: `stale-worker:${token - 1}`,
      workerId: "stale-worker",
      blockMs: 50,
    });

    let reading = true;
    let taken = 0;
    const claims = new Set<unknown>();
    const staleLoop = (async () => {
      while (reading) {
        taken += (await stale.fresh(100)).length;
        claims.add(await stale.claimOrphans());
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    for (let value = 0; value < EVENTS; value++) {
      expect(
        (await t.request("POST", "/v1/events", { outcome_key: "o", action: "step", properties: { value } })).status,
      ).toBe(202);
    }
    const values = await eventually(
      async () => {
        const reply = await t.request("GET", "/v1/outcomes/o/events?limit=1000");
        const got = (reply.body as { events: { properties: { value: number } }[] }).events.map(
          (e) => e.properties.value,
        );
        return got.length >= EVENTS ? got : undefined;
      },
      10_000,
      "every event applied",
    );
    reading = false;
    await staleLoop;

    expect(values).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
    // The stale reads did take entries (the owner waits between small reads), and nothing stays pending.
    expect(taken).toBeGreaterThan(0);
    expect([...claims]).toEqual(["lease-lost"]);
    await eventually(
      async () => (((await client.xpending(keys.stream(0), "verdict")) as [number])[0] === 0 ? true : undefined),
      5_000,
      "nothing pending",
    );

    // Idle, no commit comes to refuse an entry the stale worker took: the owner looks for such entries
    // every second. Written and read in one transaction, the entry goes to the stale reader, not to the
    // owner's blocked read (Redis serves blocked clients only once the transaction is done).
    const late = packEnvelope({
      accountId: t.accountId,
      outcomeKey: "o",
      variant: "A",
      action: "late",
      receivedAt: Date.now(),
    });
    const [, [, staleRead]] = (await client
      .multi()
      // An entry as enqueue.lua writes it: a msgpack array of packed envelopes.
      .xadd(keys.stream(0), "*", ENTRY_FIELD, msgpack.pack([late]))
      .xreadgroup("GROUP", "verdict", "stale-worker", "COUNT", 10, "STREAMS", keys.stream(0), ">")
      .exec()) as [unknown, [unknown, unknown[] | null]];
    expect(staleRead).toHaveLength(1);
    await eventually(
      async () => {
        const reply = await t.request("GET", "/v1/outcomes/o/events?limit=1000");
        return (reply.body as { events: { action: string }[] }).events.at(-1)?.action === "late" ? true : undefined;
      },
      5_000,
      "the entry the stale reader took applied",
    );
  });
});
