// The client's webhook routes against the real service: create, read, list, change, rotate, messages and
// their attempts, delete, and the service's 404s as VerdictErrors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerdictClient, VerdictError } from "../../src/client/index.js";
import { startTestApp, type TestApp } from "../support/app.js";

describe("client webhook routes", () => {
  let t: TestApp;
  let client: VerdictClient;

  beforeAll(async () => {
    // Endpoints here point at loopback, which the service refuses unless told otherwise.
    t = await startTestApp("standalone", { webhookAllowPrivateUrls: true });
    client = new VerdictClient({ baseUrl: t.base, token: t.token });
  });
  afterAll(async () => {
    await client?.close();
    await t?.stop();
  });

  it("creates, reads, lists, changes, rotates and deletes an endpoint", async () => {
    const created = await client.webhooks.create({
      url: "http://127.0.0.1:9/hook",
      event_types: ["outcome.confirmed"],
      description: "ops",
    });
    expect(created).toMatchObject({
      url: "http://127.0.0.1:9/hook",
      event_types: ["outcome.confirmed"],
      description: "ops",
      enabled: true,
    });
    expect(created.secret).toMatch(/^whsec_/);
    const { secret, ...view } = created;
    expect(secret).not.toBe("");
    expect(await client.webhooks.get(created.id)).toEqual(view);
    expect((await client.webhooks.list()).webhook_endpoints).toContainEqual(view);
    const all = [];
    for await (const endpoint of client.webhooks.list({ limit: 1 })) all.push(endpoint.id);
    expect(all).toContain(created.id);

    expect(await client.webhooks.patch(created.id, { enabled: false })).toMatchObject({
      id: created.id,
      enabled: false,
    });
    expect(await client.webhooks.secret(created.id)).toEqual({ secret: created.secret });
    const rotated = await client.webhooks.rotateSecret(created.id);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThan(Date.now());
    expect(await client.webhooks.messages(created.id)).toEqual({ messages: [], next_cursor: null });

    const noMessage = await client.webhooks.attempts(created.id, "msg_unknown").catch((error: unknown) => error);
    expect(noMessage).toBeInstanceOf(VerdictError);
    expect(noMessage).toMatchObject({ status: 404, code: "WEBHOOK_MESSAGE_NOT_FOUND" });
    const noResend = await client.webhooks.resend(created.id, "msg_unknown").catch((error: unknown) => error);
    expect(noResend).toMatchObject({ status: 404, code: "WEBHOOK_MESSAGE_NOT_FOUND" });

    await client.webhooks.delete(created.id);
    const gone = await client.webhooks.get(created.id).catch((error: unknown) => error);
    expect(gone).toMatchObject({ status: 404, code: "WEBHOOK_ENDPOINT_NOT_FOUND" });
  });

  it("refuses a body the service does not take, with its details", async () => {
    const refused = await client.webhooks.create({ url: "" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect((refused as VerdictError).details?.[0]?.path).toBe("url");
  });
});
