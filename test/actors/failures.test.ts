// A poison event never blocks its shard: what keeps throwing is dead-lettered PROCESSING_FAILED after the
// configured attempts while the shard's other events go on; an entry that is not an event is skipped;
// and the stream is trimmed once its entries are applied.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { msgpack } from "../../src/codec/msgpack.js";
import { packEnvelope, type EventEnvelope } from "../../src/streams/event-envelope.js";
import { ENTRY_FIELD } from "../../src/streams/stream-entry.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";

describe.each(DEPLOYMENTS)("processing failures (%s)", (deployment) => {
  let t: TestApp;

  beforeAll(async () => {
    // One shard: every outcome shares it, so a blocked shard would show at once.
    t = await startTestApp(deployment, { shards: 1, maxProcessingAttempts: 3 });
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "never" })).status).toBe(201);
  });
  afterAll(async () => {
    await t.stop();
  });

  const count = async (key: string, action: string): Promise<number> => {
    const body = (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as {
      observations?: Record<string, { count: number }>;
    };
    return body.observations?.[action]?.count ?? 0;
  };

  it("dead-letters an event that keeps failing as PROCESSING_FAILED and keeps the shard moving", async () => {
    expect((await t.request("PUT", "/v1/customers/broken", { name: "Broken", rate_card_key: "card" })).status).toBe(
      201,
    );
    // Corrupt the stored customer: creating an outcome for it now throws on every attempt.
    await t.app.redis.set(t.app.keys.record(t.accountId, "customer", "broken"), "{not json");
    expect((await t.request("POST", "/v1/outcomes", { key: "healthy", task_key: "t" })).status).toBe(201);

    expect(
      (await t.request("POST", "/v1/events", { key: "poison", customer_key: "broken", action: "go" })).status,
    ).toBe(202);
    expect((await t.request("POST", "/v1/events", { outcome_key: "healthy", action: "tick" })).status).toBe(202);

    const letter = await eventually(
      async () => {
        const list = (await t.request("GET", "/v1/dlq?code=PROCESSING_FAILED")).body as {
          dead_letters: { outcome_key: string; attempts: number; message: string }[];
        };
        return list.dead_letters.find((d) => d.outcome_key === "poison");
      },
      15_000,
      "PROCESSING_FAILED dead letter",
    );
    expect(letter.attempts).toBe(3);
    expect(letter.message).toMatch(/JSON/);
    await eventually(
      async () => ((await count("healthy", "tick")) === 1 ? true : undefined),
      10_000,
      "the healthy event",
    );
  });

  it("skips stream entries and events that the ingress did not write, counts them, and applies the rest", async () => {
    expect((await t.request("POST", "/v1/outcomes", { key: "after-garbage", task_key: "t" })).status).toBe(201);
    const malformedBefore = await metricValue(t.app.metricsPort, "verdict_malformed_entries_total");
    const stream = t.app.keys.stream(0);
    const envelope = (action: string): EventEnvelope => ({
      accountId: t.accountId,
      outcomeKey: "after-garbage",
      variant: "A",
      action,
      receivedAt: Date.now(),
    });
    await t.app.redis.xadd(stream, "*", "e", "another field");
    await t.app.redis.xadd(stream, "*", ENTRY_FIELD, "definitely not msgpack of events");
    await t.app.redis.xadd(stream, "*", ENTRY_FIELD, msgpack.pack({ not: "an array" }));
    // One entry: a good event, an item that is no envelope, and another good event.
    await t.app.redis.xadd(
      stream,
      "*",
      ENTRY_FIELD,
      msgpack.pack([packEnvelope(envelope("before")), msgpack.pack("junk"), packEnvelope(envelope("after"))]),
    );
    expect((await t.request("POST", "/v1/events", { outcome_key: "after-garbage", action: "tick" })).status).toBe(202);
    await eventually(
      async () => ((await count("after-garbage", "tick")) === 1 ? true : undefined),
      10_000,
      "the event after the garbage",
    );
    expect(await count("after-garbage", "before")).toBe(1);
    expect(await count("after-garbage", "after")).toBe(1);
    expect((await metricValue(t.app.metricsPort, "verdict_malformed_entries_total")) - malformedBefore).toBe(4);
  });

  it("trims the shard stream once its entries are applied", async () => {
    expect((await t.request("POST", "/v1/outcomes", { key: "trim", task_key: "t" })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const events = Array.from({ length: 100 }, () => ({ outcome_key: "trim", action: "tick" }));
      expect((await t.request("POST", "/v1/events/batch", { events })).status).toBe(202);
    }
    await eventually(async () => ((await count("trim", "tick")) === 500 ? true : undefined), 10_000, "500 ticks");
    expect(await t.app.redis.xlen(t.app.keys.stream(0))).toBeLessThanOrEqual(2);
  });
});

describe.each(DEPLOYMENTS)("settlement under sustained load (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    // A read batch of one that never grows: every read is full, so the stream never counts as drained while
    // events flow.
    t = await startTestApp(deployment, { shards: 1, readBatchSize: 1, readBatchMax: 1 });
  });
  afterAll(async () => {
    await t.stop();
  });

  it("still makes due verdicts when the shard's stream never drains", async () => {
    expect((await t.request("PUT", "/v1/tasks/busy", { name: "busy", condition: "never" })).status).toBe(201);
    expect(
      (await t.request("PUT", "/v1/tasks/due", { name: "due", condition: "NOT escalated", settlement_period: "1s" }))
        .status,
    ).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "busy", task_key: "busy" })).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "due", task_key: "due" })).status).toBe(201);
    expect((await t.request("POST", "/v1/events", { outcome_key: "due", action: "started" })).status).toBe(202);

    let confirmedWhileBusy = false;
    const until = Date.now() + 8000;
    while (Date.now() < until && !confirmedWhileBusy) {
      const events = Array.from({ length: 50 }, () => ({ outcome_key: "busy", action: "tick" }));
      expect((await t.request("POST", "/v1/events/batch", { events })).status).toBe(202);
      const due = (await t.request("GET", "/v1/outcomes/due")).body as { status: string };
      confirmedWhileBusy = due.status === "CONFIRMED";
    }
    expect(confirmedWhileBusy).toBe(true);
  });
});
