// Per-account quotas on what an account stores: tasks, agents, customers, rate cards and webhook endpoints
// are refused past their quota with 403 QUOTA_EXCEEDED, atomically under concurrent creations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUOTAS } from "../../src/config/quotas.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { startTestApp, type TestApp } from "../support/app.js";

const LIMIT = 10;

/** Each quota'd kind: how to create record `i` (a PUT to its key, or a POST), and how to delete one. */
const KINDS = [
  { quota: "tasks", path: (i: number) => `/v1/tasks/t${i}`, body: { name: "t", condition: "done" } },
  { quota: "agents", path: (i: number) => `/v1/agents/a${i}`, body: { name: "a", condition: "done" } },
  { quota: "customers", path: (i: number) => `/v1/customers/c${i}`, body: { name: "c", rate_card_key: "card" } },
  {
    quota: "rate_cards",
    path: (i: number) => `/v1/rate-cards/r${i}`,
    body: { currency: "EUR", entries: [{ agent_key: "a", unit_amount: 1 }] },
  },
] as const;

describe.each(DEPLOYMENTS)("record quotas (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(deployment, {
      webhookAllowPrivateUrls: true,
      quotas: {
        ...DEFAULT_QUOTAS,
        tasks: LIMIT,
        agents: LIMIT,
        customers: LIMIT,
        rateCards: LIMIT,
        webhookEndpoints: 3,
      },
    });
  });
  afterAll(() => t.app.stop());

  for (const kind of KINDS) {
    it(`50 concurrent creations of ${kind.quota} with quota ${LIMIT} end with exactly ${LIMIT}; a replace passes, a delete frees a slot`, async () => {
      const { token } = await t.newAccount();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => t.request("PUT", kind.path(i), kind.body, token)),
      );
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status === 403);
      expect(created).toHaveLength(LIMIT);
      expect(refused).toHaveLength(50 - LIMIT);
      expect(refused[0]!.body).toMatchObject({ error: { code: "QUOTA_EXCEEDED", quota: kind.quota, limit: LIMIT } });
      const createdAt = answers.findIndex((a) => a.status === 201);
      const refusedAt = answers.findIndex((a) => a.status === 403);

      // Replacing a record the account holds is never refused, full or not.
      expect((await t.request("PUT", kind.path(createdAt), kind.body, token)).status).toBe(200);
      // Still full for a new key; deleting one frees its slot.
      expect((await t.request("PUT", kind.path(refusedAt), kind.body, token)).status).toBe(403);
      expect((await t.request("DELETE", kind.path(createdAt), undefined, token)).status).toBe(204);
      expect((await t.request("PUT", kind.path(refusedAt), kind.body, token)).status).toBe(201);
      expect((await t.request("PUT", kind.path(createdAt), kind.body, token)).status).toBe(403);
    });
  }

  it("counts each account on its own", async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    for (let i = 0; i < LIMIT; i++)
      expect((await t.request("PUT", `/v1/tasks/t${i}`, KINDS[0].body, a.token)).status).toBe(201);
    expect((await t.request("PUT", "/v1/tasks/more", KINDS[0].body, a.token)).status).toBe(403);
    expect((await t.request("PUT", "/v1/tasks/more", KINDS[0].body, b.token)).status).toBe(201);
  });

  it("refuses a webhook endpoint beyond the quota, concurrently too; a change of one still passes", async () => {
    const { token } = await t.newAccount();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.request("POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" }, token),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(9);
    expect(refused[0]!.body).toMatchObject({ error: { code: "QUOTA_EXCEEDED", quota: "webhook_endpoints", limit: 3 } });
    const id = (answers.find((a) => a.status === 201)!.body as { id: string }).id;
    expect((await t.request("PATCH", `/v1/webhook-endpoints/${id}`, { description: "changed" }, token)).status).toBe(
      200,
    );
    expect((await t.request("DELETE", `/v1/webhook-endpoints/${id}`, undefined, token)).status).toBe(204);
    expect((await t.request("POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" }, token)).status).toBe(
      201,
    );
  });
});
