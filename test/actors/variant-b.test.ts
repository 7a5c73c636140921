// Variant B end to end through HTTP: agents, customers and rate cards; creation by the first event; every
// dead-letter code from a real request; agent inference; identity rules; attribution and charges; usage.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChargeRecord as Charge } from "../../src/outcomes/charge.js";
import { shardOf } from "../../src/streams/shard.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

const unique = (label: string): string => `${label}-${randomBytes(4).toString("hex")}`;

describe.each(DEPLOYMENTS)("variant B (%s)", (deployment) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(async () => {
    await t.stop();
  });

  async function put(path: string, body: unknown): Promise<void> {
    const reply = await t.request("PUT", path, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  }

  /** An agent priced at `unitAmount` on a fresh rate card, and a customer on it. */
  async function contract(
    options: { condition?: string; method?: string; unitAmount?: number; settlement?: string } = {},
  ) {
    const agent = unique("agent");
    const card = unique("card");
    const customer = unique("cust");
    await put(`/v1/agents/${agent}`, {
      name: "Support agent",
      goal: "Resolve",
      condition: options.condition ?? "done",
      ...(options.settlement ? { settlement_period: options.settlement } : {}),
      ...(options.method ? { attribution_method: options.method } : {}),
    });
    await put(`/v1/rate-cards/${card}`, {
      currency: "EUR",
      entries: [{ agent_key: agent, unit_amount: options.unitAmount ?? 1000 }],
    });
    await put(`/v1/customers/${customer}`, { name: "Acme", rate_card_key: card });
    return { agent, card, customer };
  }

  async function send(event: Record<string, unknown>): Promise<void> {
    const reply = await t.request("POST", "/v1/events", event);
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  }

  async function outcome(key: string) {
    return (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as {
      status: string;
      goal: string;
      condition: string;
      observations: Record<string, { count: number }>;
    };
  }

  async function letterFor(key: string): Promise<{ code: string; event: Record<string, unknown> }> {
    return eventually(
      async () => {
        const letters = (await t.request("GET", "/v1/dlq?limit=1000")).body as {
          dead_letters: { code: string; outcome_key: string; event: Record<string, unknown> }[];
        };
        return letters.dead_letters.find((d) => d.outcome_key === key);
      },
      10_000,
      `dead letter for ${key}`,
    );
  }

  async function chargesOf(customer: string): Promise<Charge[]> {
    return ((await t.request("GET", `/v1/charges?customer_key=${customer}`)).body as { charges: Charge[] }).charges;
  }

  it("creates the outcome from the first event, snapshotting the agent's contract, and bills it once", async () => {
    const { agent, card, customer } = await contract({ condition: "COUNT(step)>=2", unitAmount: 1234 });
    const key = unique("job");
    await send({ key, customer_key: customer, agent_key: agent, action: "step" });
    await eventually(async () => ((await outcome(key)).observations?.step?.count === 1 ? true : undefined));
    expect(await outcome(key)).toMatchObject({ status: "OPEN", goal: "Resolve", condition: "✗COUNT(step)>=2[1]" });

    // Later edits to the agent and the rate card never change an open outcome.
    expect((await t.request("PUT", `/v1/agents/${agent}`, { name: "x", condition: "never" })).status).toBe(200);
    expect(
      (
        await t.request("PUT", `/v1/rate-cards/${card}`, {
          currency: "EUR",
          entries: [{ agent_key: agent, unit_amount: 1 }],
        })
      ).status,
    ).toBe(200);
    await send({ key, customer_key: customer, action: "step" });
    await eventually(async () => ((await outcome(key)).status === "CONFIRMED" ? true : undefined));
    const charges = await eventually(async () => {
      const list = await chargesOf(customer);
      return list.length > 0 ? list : undefined;
    });
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      outcome_key: key,
      customer_key: customer,
      agent_key: agent,
      rate_card_key: card,
      currency: "EUR",
      unit_amount: 1234,
      attribution: 1,
      amount: 1234,
    });
  });

  it("keeps a created outcome's idempotency keys, though an earlier dead-lettered event set them to expire", async () => {
    const { agent, customer } = await contract({ condition: "COUNT(step)>=3" });
    const key = unique("job");
    await send({ key, customer_key: customer, agent_key: "ghost", action: "step", idempotency_key: "first" });
    expect((await letterFor(key)).code).toBe("AGENT_NOT_FOUND");
    const hash = t.app.keys.idempotency(shardOf(t.accountId, key, t.options.shards), t.accountId, key);
    expect(await t.app.redis.pttl(hash)).toBeGreaterThan(0);
    await send({ key, customer_key: customer, agent_key: agent, action: "step", idempotency_key: "second" });
    await eventually(async () => ((await outcome(key)).observations?.step?.count === 1 ? true : undefined));
    expect(await t.app.redis.pttl(hash)).toBe(-1);
  });

  it("infers the agent from a single-entry rate card", async () => {
    const { customer } = await contract();
    const key = unique("job");
    await send({ key, customer_key: customer, action: "done" });
    await eventually(async () => ((await outcome(key)).status === "CONFIRMED" ? true : undefined));
  });

  it("dead-letters each creation failure with its code, in the documented order", async () => {
    const { agent, card, customer } = await contract();
    const noCard = unique("cust");
    await put(`/v1/customers/${noCard}`, { name: "No card" });
    const twoAgents = unique("card");
    const otherAgent = unique("agent");
    await put(`/v1/agents/${otherAgent}`, { name: "Other", condition: "done" });
    await put(`/v1/rate-cards/${twoAgents}`, {
      currency: "EUR",
      entries: [
        { agent_key: agent, unit_amount: 1 },
        { agent_key: otherAgent, unit_amount: 2 },
      ],
    });
    const ambiguous = unique("cust");
    await put(`/v1/customers/${ambiguous}`, { name: "Two agents", rate_card_key: twoAgents });
    const unpriced = unique("agent");
    await put(`/v1/agents/${unpriced}`, { name: "Unpriced", condition: "done" });

    const cases: [Record<string, unknown>, string][] = [
      [{ customer_key: "nobody", agent_key: "nobody" }, "CUSTOMER_NOT_FOUND"],
      [{ customer_key: customer, agent_key: "ghost" }, "AGENT_NOT_FOUND"],
      [{ customer_key: noCard, agent_key: agent }, "RATE_CARD_NOT_FOUND"],
      [{ customer_key: ambiguous }, "AGENT_NOT_FOUND"],
      [{ customer_key: customer, agent_key: unpriced }, "RATE_CARD_ENTRY_NOT_FOUND"],
    ];
    for (const [identity, code] of cases) {
      const key = unique("bad");
      await send({ key, action: "done", ...identity });
      expect((await letterFor(key)).code).toBe(code);
      expect((await t.request("GET", `/v1/outcomes/${key}`)).status).toBe(404);
    }
    expect(card).toBeTruthy();
  });

  it("rejects identity changes and Variant B events on task outcomes", async () => {
    const { agent, customer } = await contract({ condition: "never" });
    const other = await contract({ condition: "never" });
    const key = unique("job");
    await send({ key, customer_key: customer, agent_key: agent, action: "start" });
    await eventually(async () => ((await outcome(key)).observations?.start ? true : undefined));
    await send({ key, customer_key: other.customer, action: "x" });
    expect((await letterFor(key)).code).toBe("OUTCOME_IDENTITY_MISMATCH");

    expect((await t.request("PUT", "/v1/tasks/tb", { name: "t", condition: "done" })).status).toBeLessThan(300);
    const taskOutcome = unique("task-outcome");
    expect((await t.request("POST", "/v1/outcomes", { key: taskOutcome, task_key: "tb" })).status).toBe(201);
    await send({ key: taskOutcome, customer_key: customer, agent_key: agent, action: "done" });
    expect((await letterFor(taskOutcome)).code).toBe("OUTCOME_IDENTITY_MISMATCH");
    expect((await outcome(taskOutcome)).status).toBe("OPEN");
  });

  it("selects the attribution by the agent's method over numeric values only", async () => {
    const values: unknown[] = [2, "9", null, 0.5, 4];
    const expected: Record<string, number> = { first: 2, last: 4, min: 0.5, max: 4, sum: 6.5 };
    for (const [method, attribution] of Object.entries(expected)) {
      const { customer } = await contract({ method, unitAmount: 150 });
      const key = unique(method);
      for (const value of values)
        await send({ key, customer_key: customer, action: "step", properties: { attribution: value } });
      await send({ key, customer_key: customer, action: "done" });
      const [charge] = await eventually(async () => {
        const list = await chargesOf(customer);
        return list.length > 0 ? list : undefined;
      });
      expect(charge).toMatchObject({ attribution, amount: Math.floor(150 * attribution + 0.5) });
    }
  });

  it("creates outcomes in one batch from one read of the contract, and later ones from the edited contract", async () => {
    const { agent, card, customer } = await contract({ condition: "done", unitAmount: 100 });
    const first = [unique("job"), unique("job"), unique("job")];
    const batch = await t.request("POST", "/v1/events/batch", {
      events: first.map((key) => ({ key, customer_key: customer, agent_key: agent, action: "done" })),
    });
    expect(batch.body).toMatchObject({ accepted: 3, failed: [] });
    await eventually(async () => ((await chargesOf(customer)).length === 3 ? true : undefined));
    expect(
      (
        await t.request("PUT", `/v1/rate-cards/${card}`, {
          currency: "EUR",
          entries: [{ agent_key: agent, unit_amount: 250 }],
        })
      ).status,
    ).toBe(200);
    const later = unique("job");
    await send({ key: later, customer_key: customer, agent_key: agent, action: "done" });
    const charges = await eventually(async () => {
      const list = await chargesOf(customer);
      return list.length === 4 ? list : undefined;
    });
    expect(charges.map((c) => [c.outcome_key, c.unit_amount])).toEqual(
      expect.arrayContaining([...first.map((key) => [key, 100]), [later, 250]]),
    );
  });

  it("never charges a FAILED outcome", async () => {
    const { customer } = await contract({ condition: "NOT escalated AND done" });
    const key = unique("job");
    await send({ key, customer_key: customer, action: "escalated" });
    await eventually(async () => ((await outcome(key)).status === "FAILED" ? true : undefined));
    expect(await chargesOf(customer)).toEqual([]);
  });

  it("accepts batches mixing both variants and counts billable events once per idempotency key", async () => {
    const { customer } = await contract({ condition: "never" });
    expect((await t.request("PUT", "/v1/tasks/mix", { name: "mix", condition: "never" })).status).toBeLessThan(300);
    const taskKey = unique("a");
    expect((await t.request("POST", "/v1/outcomes", { key: taskKey, task_key: "mix" })).status).toBe(201);
    const bKey = unique("b");
    const events = [
      { outcome_key: taskKey, action: "a1" },
      { key: bKey, customer_key: customer, action: "b1", idempotency_key: "once" },
      { outcome_key: taskKey, action: "a2" },
      { key: bKey, customer_key: customer, action: "b1", idempotency_key: "once" },
      { key: bKey, customer_key: customer, action: "b2" },
    ];
    const reply = await t.request("POST", "/v1/events/batch", { events });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({ accepted: 5, failed: [], duplicates: [3] });
    await eventually(async () => ((await outcome(bKey)).observations?.b2?.count === 1 ? true : undefined));
    expect((await outcome(bKey)).observations.b1?.count).toBe(1);
    expect((await outcome(taskKey)).observations.a2?.count).toBe(1);
    const usage = (await t.request("GET", `/v1/usage?customer_key=${customer}`)).body;
    expect(usage).toEqual({ usage: [{ customer_key: customer, billable_events: 2 }] });
  });

  it("lists usage per customer in the byte order of their keys, as every other list of keys", async () => {
    const other = await t.newAccount();
    const as = (method: string, path: string, body?: unknown) => t.request(method, path, body, other.token);
    expect((await as("PUT", "/v1/agents/bot", { name: "bot", condition: "never" })).status).toBe(201);
    expect(
      (await as("PUT", "/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "bot", unit_amount: 1 }] }))
        .status,
    ).toBe(201);
    // UTF-16 order would put "😀" (D83D...) before "\uE000"; UTF-8 bytes (F0... after EE...) put it last.
    const customers = ["😀", "\uE000", "b", "é"];
    for (const customer of customers) {
      expect(
        (await as("PUT", `/v1/customers/${encodeURIComponent(customer)}`, { name: "c", rate_card_key: "card" })).status,
      ).toBe(201);
      expect(
        (
          await as("POST", "/v1/events", {
            key: `job-${customer}`,
            customer_key: customer,
            agent_key: "bot",
            action: "step",
          })
        ).status,
      ).toBe(202);
    }
    const usage = await eventually(async () => {
      const listed = (await as("GET", "/v1/usage")).body as {
        usage: { customer_key: string; billable_events: number }[];
      };
      return listed.usage.length === customers.length ? listed.usage : undefined;
    });
    expect(usage.map((u) => u.customer_key)).toEqual(["b", "é", "\uE000", "😀"]);
  });

  it("validates configuration: agent conditions read only value; rate cards need integer amounts", async () => {
    const agent = await t.request("PUT", "/v1/agents/a", { name: "a", condition: "review:score>=4" });
    expect(agent.status).toBe(400);
    expect(agent.body).toMatchObject({ error: { code: "VALIDATION_ERROR", details: [{ path: "condition" }] } });
    const card = await t.request("PUT", "/v1/rate-cards/c", {
      currency: "EUR",
      entries: [{ agent_key: "a", unit_amount: 1.5 }],
    });
    expect(card.status).toBe(400);
    expect((await t.request("GET", "/v1/agents/none")).body).toMatchObject({ error: { code: "AGENT_NOT_FOUND" } });
    expect((await t.request("GET", "/v1/customers/none")).body).toMatchObject({
      error: { code: "CUSTOMER_NOT_FOUND" },
    });
    expect((await t.request("GET", "/v1/rate-cards/none")).body).toMatchObject({
      error: { code: "RATE_CARD_NOT_FOUND" },
    });
    const listed = (await t.request("GET", "/v1/agents?limit=1")).body as {
      agents: unknown[];
      next_cursor: string | null;
    };
    expect(listed.agents).toHaveLength(1);
    expect(listed.next_cursor).not.toBeNull();
  });
});
