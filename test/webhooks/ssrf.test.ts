// SSRF refusal with private addresses not allowed (the default): at creation (and on a changed URL), and
// again at delivery, when an endpoint's host has come to resolve to a private address since its creation.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordStore } from "../../src/records/record-store.js";
import type { WebhookEndpointRecord } from "../../src/records/webhook-endpoint.js";
import { newEndpointSecret } from "../../src/webhooks/signing.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { Receiver } from "./receiver.js";

describe.each(DEPLOYMENTS)("webhook SSRF refusal (%s)", (deployment) => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestApp(deployment, { webhookRetryScheduleMs: [100] });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  it("refuses URLs that are not http(s) or reach private addresses, at creation and on change", async () => {
    for (const url of [
      receiver.url(),
      "http://localhost:8080/hook",
      "http://[::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://[fe80::1]/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.7/hook",
      "http://192.168.1.1/hook",
      "http://[fd00::1]/hook",
      "http://224.0.0.1/hook",
      "ftp://93.184.216.34/hook",
    ]) {
      const refused = await t.request("POST", "/v1/webhook-endpoints", { url });
      expect(refused.status, url).toBe(400);
      expect(refused.body, url).toMatchObject({ error: { code: "VALIDATION_ERROR", details: [{ path: "url" }] } });
    }
    const created = await t.request("POST", "/v1/webhook-endpoints", { url: "https://93.184.216.34/hook" });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const changed = await t.request("PATCH", `/v1/webhook-endpoints/${id}`, { url: receiver.url() });
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
  });

  it("checks again at delivery and sends nothing to a private address", async () => {
    // As if the endpoint's DNS name had resolved to a public address at creation and points inside now.
    const endpoint: WebhookEndpointRecord = {
      id: `ep_${randomBytes(12).toString("hex")}`,
      url: receiver.url("/inside"),
      event_types: null,
      description: null,
      enabled: true,
      secret: newEndpointSecret(),
      previous_secret: null,
      previous_secret_until: null,
      created_at: new Date().toISOString(),
    };
    await new RecordStore(t.app.redis, t.app.keys).put(t.accountId, "webhook-endpoint", endpoint.id, endpoint);
    const taskKey = `task-${randomBytes(4).toString("hex")}`;
    expect((await t.request("PUT", `/v1/tasks/${taskKey}`, { name: "t", goal: null, condition: "done" })).status).toBe(
      201,
    );
    const key = `k-${randomBytes(4).toString("hex")}`;
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    expect((await t.request("POST", "/v1/events", { outcome_key: key, action: "done" })).status).toBe(202);

    const failed = await eventually(
      async () => {
        const listed = (await t.request("GET", `/v1/webhook-endpoints/${endpoint.id}/messages`)).body as {
          messages: { id: string; status: string }[];
        };
        return listed.messages[0]?.status === "failed" ? listed.messages[0] : undefined;
      },
      20_000,
      "the message to fail",
    );
    const attempts = (await t.request("GET", `/v1/webhook-endpoints/${endpoint.id}/messages/${failed.id}/attempts`))
      .body as { attempts: { status_code: number | null; error: string }[] };
    expect(attempts.attempts).toHaveLength(2);
    for (const attempt of attempts.attempts) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/resolves to 127\.0\.0\.1, a loopback, private, link-local or multicast address/);
    }
    expect(receiver.received).toHaveLength(0);
  });
});
