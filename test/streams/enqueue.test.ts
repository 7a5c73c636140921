// The write path into Redis: events land in their shard streams in send order, stamped at the edge, and
// idempotency keys keep exactly one event per (account, outcome, key) however many retries race.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RedisClient } from "../../src/redis/client.js";
import { Scripts } from "../../src/redis/scripts.js";
import type { EventEnvelope } from "../../src/streams/event-envelope.js";
import type { Keys } from "../../src/redis/keys.js";
import { shardOf } from "../../src/streams/shard.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { streamEvents } from "../support/streams.js";
import { post, startTestApp, type TestApp } from "../ingress/support.js";

function streamOf(redis: RedisClient, keys: Keys, shard: number): Promise<{ id: string; envelope: EventEnvelope }[]> {
  return streamEvents(redis, keys.stream(shard));
}

async function allStreams(t: TestApp): Promise<Map<number, EventEnvelope[]>> {
  const streams = new Map<number, EventEnvelope[]>();
  for (let shard = 0; shard < t.options.shards; shard++) {
    const entries = await streamOf(t.app.redis, t.app.keys, shard);
    if (entries.length > 0)
      streams.set(
        shard,
        entries.map((e) => e.envelope),
      );
  }
  return streams;
}

describe.each(DEPLOYMENTS)("enqueue (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(() => t.app.stop());

  it("lands a 500-event mixed A/B batch in the right shard streams, in send order", async () => {
    const before = Date.now();
    const events = Array.from({ length: 500 }, (_, i) => {
      const outcome = `order:${i % 37}`;
      return i % 3 === 0
        ? { outcome_key: outcome, action: `step_${i}`, properties: { i } }
        : {
            key: outcome,
            customer_key: `cust-${i % 5}`,
            ...(i % 2 === 0 && { agent_key: "agent-1" }),
            action: `step_${i}`,
            properties: { i, value: i * 2 },
          };
    });
    const reply = await post(t.base, "/v1/events/batch", t.token, { events });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 500, failed: [], duplicates: [] });

    const streams = await allStreams(t);
    const expected = new Map<number, number[]>();
    events.forEach((event, i) => {
      const key = "outcome_key" in event ? event.outcome_key : event.key;
      const shard = shardOf(t.accountId, key, t.options.shards);
      expected.set(shard, [...(expected.get(shard) ?? []), i]);
    });
    expect([...streams.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
    for (const [shard, indexes] of expected) {
      // One script call per shard, appended as one stream entry.
      expect(new Set((await streamOf(t.app.redis, t.app.keys, shard)).map((e) => e.id)).size).toBe(1);
      const landed = streams.get(shard)!;
      expect(landed.map((e) => (e.properties as { i: number }).i)).toEqual(indexes);
      for (const envelope of landed) {
        const source = events[(envelope.properties as { i: number }).i]!;
        expect(envelope.accountId).toBe(t.accountId);
        expect(envelope.receivedAt).toBeGreaterThanOrEqual(before);
        expect(envelope.receivedAt).toBeLessThanOrEqual(Date.now());
        if ("outcome_key" in source) {
          expect(envelope).toMatchObject({ variant: "A", outcomeKey: source.outcome_key, action: source.action });
          expect(envelope.customerKey).toBeUndefined();
        } else {
          expect(envelope).toMatchObject({
            variant: "B",
            outcomeKey: source.key,
            customerKey: source.customer_key,
            action: source.action,
          });
          expect(envelope.agentKey).toBe(source.agent_key);
        }
      }
    }
  });

  it("keeps exactly one event for 50 concurrent retries with the same idempotency key", async () => {
    const event = {
      key: "retry:1",
      customer_key: "c",
      action: "charged",
      idempotency_key: "pay-1",
      properties: { n: 1 },
    };
    const replies = await Promise.all(Array.from({ length: 50 }, () => post(t.base, "/v1/events", t.token, event)));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(202));
    const bodies = replies.map((r) => r.body as { accepted: boolean; duplicate: boolean });
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    expect(bodies.every((b) => b.accepted)).toBe(true);
    const shard = shardOf(t.accountId, "retry:1", t.options.shards);
    const entries = (await streamOf(t.app.redis, t.app.keys, shard)).filter((e) => e.envelope.outcomeKey === "retry:1");
    expect(entries).toHaveLength(1);
    // One claim, for the one kept event.
    expect(await t.app.redis.hkeys(t.app.keys.idempotency(shard, t.accountId, "retry:1"))).toEqual(["pay-1"]);
  });

  it("keeps the first body when a key is reused with another body; scopes keys per outcome and account", async () => {
    const first = await post(t.base, "/v1/events", t.token, {
      outcome_key: "scope:1",
      action: "first",
      idempotency_key: "k",
    });
    const second = await post(t.base, "/v1/events", t.token, {
      outcome_key: "scope:1",
      action: "second",
      idempotency_key: "k",
    });
    const otherOutcome = await post(t.base, "/v1/events", t.token, {
      outcome_key: "scope:2",
      action: "other",
      idempotency_key: "k",
    });
    const other = await t.accounts.create("other");
    const otherAccount = await post(t.base, "/v1/events", other.token, {
      outcome_key: "scope:1",
      action: "theirs",
      idempotency_key: "k",
    });
    expect([first.body, second.body, otherOutcome.body, otherAccount.body]).toEqual([
      { accepted: true, duplicate: false },
      { accepted: true, duplicate: true },
      { accepted: true, duplicate: false },
      { accepted: true, duplicate: false },
    ]);
    const shard = shardOf(t.accountId, "scope:1", t.options.shards);
    const mine = (await streamOf(t.app.redis, t.app.keys, shard)).filter(
      (e) => e.envelope.outcomeKey === "scope:1" && e.envelope.accountId === t.accountId,
    );
    expect(mine.map((e) => e.envelope.action)).toEqual(["first"]);
    const theirShard = shardOf(other.account_id, "scope:1", t.options.shards);
    const theirs = (await streamOf(t.app.redis, t.app.keys, theirShard)).filter(
      (e) => e.envelope.accountId === other.account_id,
    );
    expect(theirs.map((e) => e.envelope.action)).toEqual(["theirs"]);
  });

  it("keeps no claim when the append fails, so the event can be sent again", async () => {
    // The script called directly on keys no worker reads (one hash tag, so one slot on a cluster).
    const scripts = new Scripts(t.app.redis, new URL("../../src/streams/lua/", import.meta.url), ["enqueue"]);
    const stream = `${t.app.keys.stream(0)}:failing-append-test`;
    const hash = `${stream}:idem`;
    const event = Buffer.from([0xc4, 1, 7]);
    // The last possible entry id: every later XADD fails ("the stream has exhausted the last possible ID").
    await t.app.redis.xadd(stream, "18446744073709551615-18446744073709551615", "f", "v");
    await expect(
      scripts.run("enqueue", [stream, hash], [1000, "e", 2, "key-1", event, 2, "key-2", event]),
    ).rejects.toThrow(/exhausted/);
    expect(await t.app.redis.hlen(hash)).toBe(0);
    await t.app.redis.del(stream);
    expect(await scripts.run("enqueue", [stream, hash], [1000, "e", 2, "key-1", event, 2, "key-1", event])).toBe("10");
    expect(await t.app.redis.hkeys(hash)).toEqual(["key-1"]);
    await t.app.redis.del(stream, hash);
  });

  it("lists duplicates in a batch (earlier requests and within the batch) and counts them accepted", async () => {
    await post(t.base, "/v1/events", t.token, { outcome_key: "dup:1", action: "a", idempotency_key: "x" });
    const reply = await post(t.base, "/v1/events/batch", t.token, {
      events: [
        { outcome_key: "dup:1", action: "a", idempotency_key: "x" },
        { outcome_key: "dup:1", action: "b", idempotency_key: "y" },
        { outcome_key: "dup:1", action: "b-again", idempotency_key: "y" },
        { outcome_key: "dup:2", action: "c", idempotency_key: "y" },
        { outcome_key: "dup:1", action: "no-key" },
        { outcome_key: "dup:1", action: "no-key" },
      ],
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ accepted: 6, failed: [], duplicates: [0, 2] });
    const shard = shardOf(t.accountId, "dup:1", t.options.shards);
    const actions = (await streamOf(t.app.redis, t.app.keys, shard))
      .filter((e) => e.envelope.outcomeKey === "dup:1")
      .map((e) => e.envelope.action);
    expect(actions).toEqual(["a", "b", "no-key", "no-key"]);
  });

  it("coalesces concurrent single events of one shard and answers each with its own result", async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        post(t.base, "/v1/events", t.token, {
          key: `many:${i % 10}`,
          customer_key: "c",
          action: "tick",
          idempotency_key: `t${i % 100}`,
        }),
      ),
    );
    const duplicates = replies.filter((r) => (r.body as { duplicate: boolean }).duplicate).length;
    expect(replies.every((r) => r.status === 202)).toBe(true);
    expect(duplicates).toBe(100);
    const streams = await allStreams(t);
    const landed = [...streams.values()].flat().filter((e) => e.outcomeKey.startsWith("many:"));
    expect(landed).toHaveLength(100);
  });
});
