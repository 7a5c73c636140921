// Every typed call of verdict/client against the real routes, paging iterators included, and the trace
// context a call carries when the caller has an active span.
import { randomBytes } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerdictClient, VerdictError } from "../../src/client/index.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

const unique = (label: string): string => `${label}-${randomBytes(4).toString("hex")}`;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("client routes", () => {
  let t: TestApp;
  let client: VerdictClient;
  const sent: { url: string; headers: Headers }[] = [];

  beforeAll(async () => {
    t = await startTestApp("standalone");
    client = new VerdictClient({
      baseUrl: t.base,
      token: t.token,
      fetch: (input, init) => {
        sent.push({
          url: typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
          headers: new Headers(init?.headers),
        });
        return fetch(input, init);
      },
    });
  });
  afterAll(async () => {
    await client?.close();
    await t?.stop();
  });

  it("puts, gets, lists and deletes tasks", async () => {
    const key = unique("task");
    const task = await client.tasks.put(key, {
      name: "Support",
      condition: "COUNT(reply) >= 2 AND NOT escalated",
      settlement_period: "90m",
    });
    expect(task).toEqual({
      key,
      name: "Support",
      goal: null,
      condition: "COUNT(reply)>=2 AND NOT escalated",
      settlement_period: "1h30m",
    });
    expect(await client.tasks.get(key)).toEqual(task);
    expect((await client.tasks.list()).tasks).toContainEqual(task);
    expect(await collect(client.tasks.list())).toContainEqual(task);
    await client.tasks.delete(key);
    const missing = await client.tasks.get(key).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(VerdictError);
    expect(missing).toMatchObject({ status: 404, code: "TASK_NOT_FOUND", message: `no task ${key}` });
    expect((missing as VerdictError).requestId).toEqual(expect.any(String));
  });

  it("pages tasks and every record list: one page awaited, every page followed by iterating", async () => {
    const own = new VerdictClient({ baseUrl: t.base, token: (await t.newAccount()).token });
    try {
      const keys = Array.from({ length: 5 }, (_, i) => `task-${i}`);
      for (const key of keys) await own.tasks.put(key, { name: key, condition: "done" });
      const first = await own.tasks.list({ limit: 2 });
      expect(first.tasks.map((task) => task.key)).toEqual(keys.slice(0, 2));
      expect(first.next_cursor).toEqual(expect.any(String));
      expect((await own.tasks.list({ limit: 2, cursor: first.next_cursor! })).tasks.map((task) => task.key)).toEqual(
        keys.slice(2, 4),
      );
      expect(
        (await collect(own.tasks.list({ limit: 2 }).pages())).map((page) => [
          page.tasks.length,
          page.next_cursor === null,
        ]),
      ).toEqual([
        [2, false],
        [2, false],
        [1, true],
      ]);
      expect((await collect(own.tasks.list({ limit: 2 }))).map((task) => task.key)).toEqual(keys);
      expect(await own.tasks.list()).toMatchObject({ next_cursor: null });
      for (const key of keys) await own.customers.put(key, { name: key });
      expect(
        (await collect(own.customers.list({ limit: 3 }).pages())).map((page) => page.customers.map((c) => c.key)),
      ).toEqual([keys.slice(0, 3), keys.slice(3)]);
      await expect(own.tasks.list({ cursor: "not-a-cursor" })).rejects.toMatchObject({
        status: 400,
        code: "VALIDATION_ERROR",
        details: [{ path: "cursor" }],
      });
    } finally {
      await own.close();
    }
  });

  it("rejects a wrong body with the service's details", async () => {
    const error = (await client.tasks
      .put(unique("task"), { name: "", condition: "x" })
      .catch((e: unknown) => e)) as VerdictError;
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_ERROR", details: [{ path: "name" }] });
  });

  it("opens, reads and lists outcomes, and pages through them and through an event log", async () => {
    const task = unique("task");
    await client.tasks.put(task, { name: "Paging", condition: "never_sent" });
    const keys = Array.from({ length: 5 }, (_, i) => `${unique("o")}:${i}`);
    for (const key of keys)
      expect(await client.outcomes.open({ key, task_key: task })).toMatchObject({ key, status: "OPEN", progress: 0 });
    expect(await client.outcomes.get(keys[0]!)).toMatchObject({ key: keys[0], condition: "✗never_sent" });

    const first = await client.outcomes.list({ task_key: task, limit: 2 });
    expect(first.outcomes).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const all = await collect(client.outcomes.list({ task_key: task, status: "OPEN", limit: 2 }));
    expect(all.map((o) => o.key).sort()).toEqual([...keys].sort());
    const pages = await collect(client.outcomes.list({ task_key: task, limit: 2 }).pages());
    expect(pages.map((page) => page.outcomes.length)).toEqual([2, 2, 1]);

    const sent = await client.events.send({
      outcome_key: keys[0]!,
      action: "step",
      properties: { value: 0 },
      idempotency_key: "step-0",
    });
    expect(sent).toEqual({ accepted: true, duplicate: false });
    expect(
      await client.events.send({
        outcome_key: keys[0]!,
        action: "step",
        properties: { value: 0 },
        idempotency_key: "step-0",
      }),
    ).toEqual({ accepted: true, duplicate: true });
    const batch = await client.events.batch(
      Array.from({ length: 4 }, (_, i) => ({ outcome_key: keys[0]!, action: "step", properties: { value: i + 1 } })),
    );
    expect(batch).toEqual({ accepted: 4, failed: [], duplicates: [] });
    const log = await eventually(async () => {
      const events = await collect(client.outcomes.events(keys[0]!, { limit: 2 }));
      return events.length === 5 ? events : undefined;
    });
    expect(log.map((e) => e.properties.value)).toEqual([0, 1, 2, 3, 4]);
    expect(log[0]).toMatchObject({ action: "step", idempotency_key: "step-0" });

    await expect(client.outcomes.get(unique("nope"))).rejects.toMatchObject({ status: 404, code: "OUTCOME_NOT_FOUND" });
  });

  it("configures Variant B, bills a confirmed outcome, and reads charges and usage", async () => {
    const agent = unique("agent");
    const card = unique("card");
    const customer = unique("cust");
    expect(
      await client.agents.put(agent, { name: "Resolver", condition: "resolved", attribution_method: "sum" }),
    ).toMatchObject({ key: agent, attribution_method: "sum" });
    expect(
      await client.rateCards.put(card, { currency: "EUR", entries: [{ agent_key: agent, unit_amount: 250 }] }),
    ).toMatchObject({ key: card, currency: "EUR" });
    expect(await client.customers.put(customer, { name: "Acme", rate_card_key: card })).toEqual({
      key: customer,
      name: "Acme",
      rate_card_key: card,
    });
    expect(await client.agents.get(agent)).toMatchObject({ name: "Resolver", condition: "resolved" });
    expect(await client.customers.get(customer)).toMatchObject({ name: "Acme" });
    expect(await client.rateCards.get(card)).toMatchObject({ entries: [{ agent_key: agent, unit_amount: 250 }] });
    expect((await collect(client.agents.list({ limit: 1 }))).map((a) => a.key)).toContain(agent);
    expect((await collect(client.customers.list())).map((c) => c.key)).toContain(customer);
    expect((await collect(client.rateCards.list())).map((r) => r.key)).toContain(card);

    const key = unique("conv");
    await client.track({
      key,
      customer_key: customer,
      agent_key: agent,
      action: "reply",
      properties: { attribution: 2 },
    });
    await client.track({ key, customer_key: customer, action: "resolved", properties: { attribution: 1 } });
    const confirmed = await eventually(async () => {
      const outcome = await client.outcomes.get(key).catch(() => undefined);
      return outcome?.status === "CONFIRMED" ? outcome : undefined;
    });
    expect(confirmed.progress).toBe(1);
    const charges = await eventually(async () => {
      const list = await collect(client.charges.list({ customer_key: customer }));
      return list.length > 0 ? list : undefined;
    });
    expect(charges).toEqual([
      expect.objectContaining({
        outcome_key: key,
        customer_key: customer,
        agent_key: agent,
        currency: "EUR",
        attribution: 3,
        amount: 750,
      }),
    ]);
    expect((await client.outcomes.list({ customer_key: customer })).outcomes.map((o) => o.key)).toEqual([key]);
    expect(await client.usage.get({ customer_key: customer })).toEqual({
      usage: [{ customer_key: customer, billable_events: 2 }],
    });
    const insights = await client.insights.get({ group_by: "customer", key: customer, bucket: "hour", limit: 1 });
    expect(insights).toMatchObject({
      bucket: "hour",
      groups: [
        { key: customer, totals: { opened: 1, confirmed: 1, failed: 0, charges: { EUR: { count: 1, amount: 750 } } } },
      ],
    });
    // The default range, the last 24 hours, spans 25 hour buckets unless it starts on the hour.
    expect(insights.groups[0]!.series.length).toBeGreaterThanOrEqual(24);
    expect(insights.groups[0]!.series.length).toBeLessThanOrEqual(25);
    await expect(
      client.insights.get({ group_by: "customer", bucket: "hour", tz: "Nowhere/Land" }),
    ).rejects.toMatchObject({ status: 400, code: "VALIDATION_ERROR" });

    for (const remove of [
      () => client.customers.delete(customer),
      () => client.rateCards.delete(card),
      () => client.agents.delete(agent),
    ])
      await remove();
    await expect(client.agents.get(agent)).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
    await expect(client.customers.get(customer)).rejects.toMatchObject({ code: "CUSTOMER_NOT_FOUND" });
    await expect(client.rateCards.get(card)).rejects.toMatchObject({ code: "RATE_CARD_NOT_FOUND" });
  });

  it("lists dead letters by code and replays one", async () => {
    const key = unique("missing");
    await client.track({ outcome_key: key, action: "orphan" });
    const letter = await eventually(async () =>
      (await collect(client.dlq.list({ code: "OUTCOME_NOT_FOUND", limit: 1000 }))).find((d) => d.outcome_key === key),
    );
    expect(letter).toMatchObject({
      code: "OUTCOME_NOT_FOUND",
      event: { outcome_key: key, action: "orphan" },
      attempts: 1,
    });
    expect(await client.dlq.replay(letter.id)).toEqual({ replayed: true, id: letter.id });
    await expect(client.dlq.replay(letter.id)).rejects.toMatchObject({ status: 404, code: "DEAD_LETTER_NOT_FOUND" });
  });

  it("sends the active span's traceparent, and a batch the one its first event was tracked in", async () => {
    const sdk = new NodeSDK({
      autoDetectResources: false,
      spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    try {
      const from = sent.length;
      const context = await trace.getTracer("fleet").startActiveSpan("agent-turn", async (span) => {
        await client.tasks.list();
        await client.track({ outcome_key: unique("traced"), action: "step" });
        span.end();
        return span.spanContext();
      });
      const traceparent = `00-${context.traceId}-${context.spanId}-01`;
      expect(
        sent.slice(from).map((request) => [request.url.replace(t.base, ""), request.headers.get("traceparent")]),
      ).toEqual([
        ["/v1/tasks", traceparent],
        ["/v1/events/batch", traceparent],
      ]);
      const after = sent.length;
      await client.tasks.list();
      await client.track({ outcome_key: unique("untraced"), action: "step" });
      expect(sent.slice(after).map((request) => request.headers.get("traceparent"))).toEqual([null, null]);
    } finally {
      await sdk.shutdown();
    }
  });
});
