// One account's session never sees or changes another account's data, on every page and action; on a
// cluster too, where every read of the pages (home counts included) must stay within one slot per call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { FormClient } from "./form-client.js";

describe.each(DEPLOYMENTS)("dashboard account isolation (%s)", (deployment) => {
  let t: TestApp;
  let b: FormClient;
  let letterId = "";
  let hook = { id: "", secret: "" };
  let messageId = "";
  const a = (method: string, path: string, body?: unknown): ReturnType<TestApp["request"]> =>
    t.request(method, path, body);

  beforeAll(async () => {
    t = await startTestApp(deployment, { webhookAllowPrivateUrls: true });
    // Account A (the test app's own) through the API: one of everything, a dead letter and a charge, and
    // a webhook endpoint (first, so those make messages; nothing listens on port 9, so they stay pending).
    hook = (await a("POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/a-hook" })).body as typeof hook;
    await a("PUT", "/v1/tasks/a-task", { name: "A task", condition: "done" });
    await a("POST", "/v1/outcomes", { key: "a-outcome", task_key: "a-task" });
    await a("PUT", "/v1/rate-cards/a-card", { currency: "EUR", entries: [{ agent_key: "a-agent", unit_amount: 700 }] });
    await a("PUT", "/v1/agents/a-agent", { name: "A agent", condition: "resolved" });
    await a("PUT", "/v1/customers/a-customer", { name: "A customer", rate_card_key: "a-card" });
    await a("POST", "/v1/events", {
      key: "a-job",
      action: "resolved",
      customer_key: "a-customer",
      agent_key: "a-agent",
    });
    await a("POST", "/v1/events", { key: "a-lost", action: "resolved", customer_key: "a-nobody" });
    letterId = await eventually(async () => {
      const letters = (await a("GET", "/v1/dlq")).body as { dead_letters: { id: string }[] };
      return letters.dead_letters[0]?.id;
    });
    await eventually(async () =>
      ((await a("GET", "/v1/charges")).body as { charges: unknown[] }).charges.length === 1 ? true : undefined,
    );
    messageId = await eventually(
      async () =>
        ((await a("GET", `/v1/webhook-endpoints/${hook.id}/messages`)).body as { messages: { id: string }[] })
          .messages[0]?.id,
    );

    b = new FormClient(t.base);
    expect((await b.signUp(`b-${Date.now()}@example.com`, "B Co")).status).toBe(303);
  });
  afterAll(() => t?.stop());

  it("lists none of A's records, outcomes, dead letters, charges or usage to B", async () => {
    for (const path of [
      "/dashboard/tasks",
      "/dashboard/agents",
      "/dashboard/customers",
      "/dashboard/rate-cards",
      "/dashboard/outcomes",
      "/dashboard/dead-letters",
      "/dashboard/charges",
      "/dashboard/webhooks",
      "/dashboard/",
    ]) {
      const reply = await b.get(path);
      expect(reply.status, path).toBe(200);
      for (const secret of [
        "a-task",
        "a-outcome",
        "a-agent",
        "a-customer",
        "a-card",
        "a-job",
        "a-lost",
        "a-nobody",
        letterId,
        hook.id,
        "a-hook",
        messageId,
      ]) {
        expect(reply.text, `${path} shows ${secret}`).not.toContain(secret);
      }
    }
    expect(await b.token()).not.toBe(t.token);
  });

  it("opens none of A's records or outcomes for B, live stream included", async () => {
    const hookPages = ["", "/delete", "/rotate-secret", `/messages/${messageId}`].map(
      (page) => `/dashboard/webhooks/${hook.id}${page}`,
    );
    for (const path of [
      "/dashboard/tasks/a-task/edit",
      "/dashboard/agents/a-agent/edit",
      "/dashboard/customers/a-customer/edit",
      "/dashboard/tasks/a-task/insights",
      "/dashboard/agents/a-agent/insights",
      "/dashboard/customers/a-customer/insights",
      "/dashboard/rate-cards/a-card/edit",
      "/dashboard/outcomes/a-outcome",
      "/dashboard/outcomes/a-job",
      "/dashboard/outcomes/a-outcome/live",
      ...hookPages,
    ]) {
      const reply = await b.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.text).not.toContain("A task");
      expect(reply.text).not.toContain("a-hook");
    }
    // Nor A's message through an endpoint of B's own.
    const created = await b.post("/dashboard/webhooks/new", {
      url: "http://127.0.0.1:9/b-hook",
      _csrf: await b.csrf(),
    });
    const own = /<code>(ep_[0-9a-f]+)<\/code>/.exec(created.text)?.[1];
    expect(own).toBeDefined();
    expect((await b.get(`/dashboard/webhooks/${own}/messages/${messageId}`)).status).toBe(404);
  });

  it("changes none of A's data through B's forms", async () => {
    const csrf = await b.csrf();
    const edits: [string, Record<string, string>][] = [
      ["/dashboard/tasks/a-task/edit", { name: "Hijacked", condition: "x" }],
      ["/dashboard/agents/a-agent/edit", { name: "Hijacked", condition: "x", attribution_method: "sum" }],
      ["/dashboard/customers/a-customer/edit", { name: "Hijacked" }],
      ["/dashboard/rate-cards/a-card/edit", { currency: "USD", entries: "" }],
      ["/dashboard/tasks/a-task/delete", {}],
      ["/dashboard/agents/a-agent/delete", {}],
      ["/dashboard/customers/a-customer/delete", {}],
      ["/dashboard/rate-cards/a-card/delete", {}],
      [`/dashboard/webhooks/${hook.id}/enabled`, { enabled: "false" }],
      [`/dashboard/webhooks/${hook.id}/rotate-secret`, {}],
      [`/dashboard/webhooks/${hook.id}/messages/${messageId}/resend`, {}],
      [`/dashboard/webhooks/${hook.id}/delete`, {}],
    ];
    for (const [path, fields] of edits) expect((await b.post(path, { ...fields, _csrf: csrf })).status, path).toBe(404);
    const replay = await b.post(`/dashboard/dead-letters/${encodeURIComponent(letterId)}/replay`, { _csrf: csrf });
    expect(replay.location).toBe("/dashboard/dead-letters?failed=gone");

    expect((await a("GET", "/v1/tasks/a-task")).body).toMatchObject({ name: "A task" });
    expect((await a("GET", "/v1/agents/a-agent")).body).toMatchObject({ name: "A agent" });
    expect((await a("GET", "/v1/customers/a-customer")).body).toMatchObject({ name: "A customer" });
    expect((await a("GET", "/v1/rate-cards/a-card")).body).toMatchObject({ currency: "EUR" });
    expect((await a("GET", `/v1/webhook-endpoints/${hook.id}`)).body).toMatchObject({ enabled: true });
    expect((await a("GET", `/v1/webhook-endpoints/${hook.id}/secret`)).body).toEqual({ secret: hook.secret });
    expect(
      ((await a("GET", "/v1/dlq")).body as { dead_letters: { id: string }[] }).dead_letters.map((l) => l.id),
    ).toEqual([letterId]);

    // A "new" record of the same key in B is B's own, and A's stays as it was.
    expect(
      (await b.post("/dashboard/tasks/new", { key: "a-task", name: "B's", condition: "y", _csrf: csrf })).status,
    ).toBe(303);
    expect((await a("GET", "/v1/tasks/a-task")).body).toMatchObject({ name: "A task", condition: "done" });
  });
});
