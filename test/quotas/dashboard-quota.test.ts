// The dashboard's forms say when a quota is full, in the service's words, instead of failing the page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUOTAS } from "../../src/config/quotas.js";
import { FormClient } from "../dashboard/form-client.js";
import { startTestApp, type TestApp } from "../support/app.js";

describe("dashboard forms past a quota", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("standalone", {
      webhookAllowPrivateUrls: true,
      quotas: { ...DEFAULT_QUOTAS, tasks: 1, webhookEndpoints: 1 },
    });
  });
  afterAll(() => t?.stop());

  it("shows the full quota on the task and webhook forms", async () => {
    const visitor = new FormClient(t.base);
    expect((await visitor.signUp(`q-${Date.now()}@example.com`, "Q Co")).status).toBe(303);
    const csrf = await visitor.csrf();
    expect(
      (await visitor.post("/dashboard/tasks/new", { key: "first", name: "First", condition: "done", _csrf: csrf }))
        .status,
    ).toBe(303);
    const task = await visitor.post("/dashboard/tasks/new", {
      key: "second",
      name: "Second",
      condition: "done",
      _csrf: csrf,
    });
    expect(task.status).toBe(400);
    expect(task.text).toContain("The account has reached its quota of 1 tasks.");
    expect((await visitor.post("/dashboard/webhooks/new", { url: "http://127.0.0.1:9/one", _csrf: csrf })).status).toBe(
      200,
    );
    const endpoint = await visitor.post("/dashboard/webhooks/new", { url: "http://127.0.0.1:9/two", _csrf: csrf });
    expect(endpoint.status).toBe(400);
    expect(endpoint.text).toContain("The account has reached its quota of 1 webhook endpoints.");
  });
});
