// Webhooks end to end (issue 17): endpoints over HTTP, notifications committed with verdicts and dead
// letters, signed deliveries to a real receiver verified by the `standardwebhooks` package, retries with
// the same webhook-id, attempts, resend, failure, 410, a receiver down then back, and secret rotation.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { Receiver, type Received } from "./receiver.js";

interface Endpoint {
  id: string;
  url: string;
  event_types: string[] | null;
  description: string | null;
  enabled: boolean;
  secret?: string;
  created_at: string;
}

interface Message {
  id: string;
  event_type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

interface Attempt {
  timestamp: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response: string;
}

const unique = (label: string): string => `${label}-${randomBytes(4).toString("hex")}`;
/** Five quick retries: a message fails on its sixth failed attempt. */
const SCHEDULE_MS = [150, 150, 150, 150, 150];

function verify(secret: string, request: Received): unknown {
  return new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  });
}

describe.each(DEPLOYMENTS)("webhooks (%s)", (deployment) => {
  let t: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestApp(deployment, { webhookAllowPrivateUrls: true, webhookRetryScheduleMs: SCHEDULE_MS });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  async function endpoint(path: string, extra: Record<string, unknown> = {}): Promise<Endpoint> {
    const created = await t.request("POST", "/v1/webhook-endpoints", { url: receiver.url(path), ...extra });
    expect(created.status).toBe(201);
    return created.body as Endpoint;
  }

  async function outcome(condition: string): Promise<string> {
    const taskKey = unique("task");
    expect((await t.request("PUT", `/v1/tasks/${taskKey}`, { name: "t", goal: null, condition })).status).toBe(201);
    const key = unique("ticket");
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    return key;
  }

  async function send(outcomeKey: string, action: string): Promise<void> {
    expect((await t.request("POST", "/v1/events", { outcome_key: outcomeKey, action })).status).toBe(202);
  }

  async function messages(endpointId: string): Promise<Message[]> {
    const listed = await t.request("GET", `/v1/webhook-endpoints/${endpointId}/messages?limit=1000`);
    expect(listed.status).toBe(200);
    return (listed.body as { messages: Message[] }).messages;
  }

  async function attempts(endpointId: string, messageId: string): Promise<Attempt[]> {
    const listed = await t.request("GET", `/v1/webhook-endpoints/${endpointId}/messages/${messageId}/attempts`);
    expect(listed.status).toBe(200);
    return (listed.body as { attempts: Attempt[] }).attempts;
  }

  const outboxKeys = (): string[] =>
    Array.from({ length: t.options.shards }, (_, shard) => t.app.keys.webhookOutbox(shard));

  function outboxesDrained(): Promise<true> {
    return eventually(
      async () =>
        (await Promise.all(outboxKeys().map((key) => t.app.redis.xlen(key)))).every((length) => length === 0)
          ? true
          : undefined,
      20_000,
      "the outboxes drained",
    );
  }

  /** Waits until the endpoint has `count` messages, all in `status`. */
  function settled(
    endpointId: string,
    count: number,
    status: Message["status"] = "delivered",
    timeoutMs = 20_000,
  ): Promise<Message[]> {
    return eventually(
      async () => {
        const listed = await messages(endpointId);
        return listed.length === count && listed.every((m) => m.status === status) ? listed : undefined;
      },
      timeoutMs,
      `${count} ${status} messages of ${endpointId}`,
    );
  }

  it("creates, reads, lists, changes and deletes endpoints, with the spec's errors", async () => {
    const created = await endpoint("/crud", { description: "ops", event_types: ["outcome.failed"] });
    expect(created).toMatchObject({
      url: receiver.url("/crud"),
      description: "ops",
      event_types: ["outcome.failed"],
      enabled: true,
    });
    expect(created.id).toMatch(/^ep_/);
    expect(created.secret).toMatch(/^whsec_/);
    expect(Buffer.from(created.secret!.slice("whsec_".length), "base64")).toHaveLength(32);

    const one = await t.request("GET", `/v1/webhook-endpoints/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty("secret");
    expect((await t.request("GET", `/v1/webhook-endpoints/${created.id}/secret`)).body).toEqual({
      secret: created.secret,
    });
    const listed = (await t.request("GET", "/v1/webhook-endpoints")).body as { webhook_endpoints: Endpoint[] };
    expect(listed.webhook_endpoints.map((e) => e.id)).toContain(created.id);

    const patched = await t.request("PATCH", `/v1/webhook-endpoints/${created.id}`, {
      enabled: false,
      event_types: null,
      description: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      enabled: false,
      event_types: null,
      description: null,
      url: receiver.url("/crud"),
    });

    const bad = await t.request("POST", "/v1/webhook-endpoints", { url: "ftp://example.com/x" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
    const badType = await t.request("POST", "/v1/webhook-endpoints", {
      url: receiver.url(),
      event_types: ["outcome.opened"],
    });
    expect(badType.status).toBe(400);
    expect(badType.body).toMatchObject({ error: { code: "VALIDATION_ERROR" } });

    expect((await t.request("DELETE", `/v1/webhook-endpoints/${created.id}`)).status).toBe(204);
    const gone = await t.request("GET", `/v1/webhook-endpoints/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { code: "WEBHOOK_ENDPOINT_NOT_FOUND" } });
    expect((await t.request("PATCH", `/v1/webhook-endpoints/${created.id}`, { enabled: true })).status).toBe(404);
    // Another account sees none of this account's endpoints.
    const other = await t.newAccount();
    const live = await endpoint("/isolated");
    expect((await t.request("GET", `/v1/webhook-endpoints/${live.id}`, undefined, other.token)).status).toBe(404);
    expect((await t.request("DELETE", `/v1/webhook-endpoints/${live.id}`)).status).toBe(204);
  });

  it("delivers a confirmed and a failed outcome once each, signed so standardwebhooks verifies them", async () => {
    const hook = await endpoint("/verdicts", { event_types: ["outcome.confirmed", "outcome.failed"] });
    const good = await outcome("done");
    const bad = await outcome("NOT escalated");
    await send(good, "done");
    await send(bad, "escalated");
    const delivered = await settled(hook.id, 2);
    expect(delivered.map((m) => m.event_type).sort()).toEqual(["outcome.confirmed", "outcome.failed"]);

    const got = receiver.on("/verdicts");
    expect(got).toHaveLength(2);
    expect(new Set(got.map((r) => r.id)).size).toBe(2);
    for (const request of got) {
      const payload = verify(hook.secret!, request) as Message["payload"];
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["user-agent"]).toMatch(/^Verdict-Webhooks\/\d/);
      expect(request.id).toMatch(/^msg_[0-9a-f]{32}$/);
      const key = String(payload.data.key);
      // The data is the outcome exactly as GET /v1/outcomes/{key} shows it.
      expect(payload.data).toEqual((await t.request("GET", `/v1/outcomes/${key}`)).body);
      expect(payload.type).toBe(key === good ? "outcome.confirmed" : "outcome.failed");
      expect(Date.parse(payload.timestamp)).not.toBeNaN();
    }
    // A forged body does not verify.
    expect(() => verify(hook.secret!, { ...got[0]!, body: got[0]!.body.replace("outcome", "outcomf") })).toThrow();
  });

  it("notifies a dead letter with the letter as GET /v1/dlq lists it", async () => {
    const hook = await endpoint("/dead", { event_types: ["dead_letter.created"] });
    const missing = unique("missing");
    await send(missing, "done");
    const [message] = await settled(hook.id, 1);
    const letters = (await t.request("GET", "/v1/dlq?code=OUTCOME_NOT_FOUND&limit=1000")).body as {
      dead_letters: { outcome_key: string }[];
    };
    expect(message!.payload.data).toEqual(letters.dead_letters.find((letter) => letter.outcome_key === missing));
    expect(verify(hook.secret!, receiver.on("/dead")[0]!)).toMatchObject({ type: "dead_letter.created" });
  });

  it("notifies a Variant B charge with the charge as GET /v1/charges lists it, before its verdict", async () => {
    const hook = await endpoint("/billing", { event_types: ["charge.created", "outcome.confirmed"] });
    const agent = unique("agent");
    const card = unique("card");
    const customer = unique("cust");
    expect(
      (await t.request("PUT", `/v1/agents/${agent}`, { name: "Support agent", goal: "Resolve", condition: "done" }))
        .status,
    ).toBe(201);
    expect(
      (
        await t.request("PUT", `/v1/rate-cards/${card}`, {
          currency: "EUR",
          entries: [{ agent_key: agent, unit_amount: 1234 }],
        })
      ).status,
    ).toBe(201);
    expect((await t.request("PUT", `/v1/customers/${customer}`, { name: "Acme", rate_card_key: card })).status).toBe(
      201,
    );
    const key = unique("job");
    expect(
      (await t.request("POST", "/v1/events", { key, customer_key: customer, agent_key: agent, action: "done" })).status,
    ).toBe(202);
    await settled(hook.id, 2);
    const got = receiver.on("/billing").map((request) => verify(hook.secret!, request) as Message["payload"]);
    // One outcome's messages go out in commit order: the charge is appended before the verdict's snapshot.
    expect(got.map((payload) => payload.type)).toEqual(["charge.created", "outcome.confirmed"]);
    const charges = (await t.request("GET", `/v1/charges?customer_key=${customer}`)).body as { charges: unknown[] };
    expect(got[0]!.data).toEqual(charges.charges[0]);
    expect(got[0]!.data).toMatchObject({ outcome_key: key, amount: 1234, currency: "EUR" });
  });

  it("retries a 500 with the same webhook-id, lists every attempt, and resends on request", async () => {
    const hook = await endpoint("/flaky", { event_types: ["outcome.confirmed"] });
    let calls = 0;
    const previous = receiver.respond;
    receiver.respond = (request) =>
      request.path === "/flaky" && ++calls <= 2 ? { status: 500, body: "not yet" } : previous(request);
    const key = await outcome("done");
    await send(key, "done");
    const [message] = await settled(hook.id, 1);
    const got = receiver.on("/flaky");
    expect(got.map((r) => r.id)).toEqual([message!.id, message!.id, message!.id]);
    for (const request of got) verify(hook.secret!, request);
    const listed = await attempts(hook.id, message!.id);
    expect(listed.map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(listed[0]).toMatchObject({ response: "not yet", error: null });
    expect(message!.attempts).toBe(3);

    const resent = await t.request("POST", `/v1/webhook-endpoints/${hook.id}/messages/${message!.id}/resend`);
    expect(resent.status).toBe(202);
    await eventually(
      async () => ((await attempts(hook.id, message!.id)).length === 4 ? true : undefined),
      10_000,
      "the resent attempt",
    );
    expect(receiver.on("/flaky").map((r) => r.id)).toEqual(Array(4).fill(message!.id));
    const unknown = await t.request("POST", `/v1/webhook-endpoints/${hook.id}/messages/msg_${"0".repeat(32)}/resend`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: "WEBHOOK_MESSAGE_NOT_FOUND" } });
  });

  it("marks a message failed after its last attempt, and 410 disables the endpoint", async () => {
    const failing = await endpoint("/always-500", { event_types: ["outcome.confirmed"] });
    const gone = await endpoint("/gone", { event_types: ["outcome.confirmed"] });
    const previous = receiver.respond;
    receiver.respond = (request) =>
      request.path === "/always-500" ? { status: 500 } : request.path === "/gone" ? { status: 410 } : previous(request);
    const key = await outcome("done");
    await send(key, "done");
    const [failed] = await settled(failing.id, 1, "failed");
    expect(failed!.attempts).toBe(SCHEDULE_MS.length + 1);
    expect(receiver.on("/always-500")).toHaveLength(SCHEDULE_MS.length + 1);

    await eventually(
      async () =>
        ((await t.request("GET", `/v1/webhook-endpoints/${gone.id}`)).body as Endpoint).enabled === false
          ? true
          : undefined,
      10_000,
      "410 to disable",
    );
    expect(receiver.on("/gone")).toHaveLength(1);
  });

  it("honours Retry-After on 429", async () => {
    const hook = await endpoint("/busy", { event_types: ["outcome.confirmed"] });
    let calls = 0;
    const previous = receiver.respond;
    receiver.respond = (request) =>
      request.path === "/busy" && ++calls === 1 ? { status: 429, headers: { "retry-after": "2" } } : previous(request);
    const key = await outcome("done");
    await send(key, "done");
    const [message] = await settled(hook.id, 1);
    const [first, second] = await attempts(hook.id, message!.id);
    expect(first!.status_code).toBe(429);
    expect(second!.status_code).toBe(200);
    // The schedule says 150 ms; the receiver asked for 2 s, and the next attempt waited at least that.
    expect(Date.parse(second!.timestamp) - Date.parse(first!.timestamp)).toBeGreaterThanOrEqual(1900);
  });

  it("delivers everything once a receiver that was down comes back", async () => {
    const later = new Receiver();
    await later.start();
    const port = later.listeningPort;
    await later.stop();
    const hook = (
      await t.request("POST", "/v1/webhook-endpoints", {
        url: `http://127.0.0.1:${port}/back`,
        event_types: ["outcome.confirmed"],
      })
    ).body as Endpoint;
    const keys = [await outcome("done"), await outcome("done"), await outcome("done")];
    for (const key of keys) await send(key, "done");
    // Attempts fail (connection refused) while nobody listens.
    await eventually(
      async () => {
        const listed = await messages(hook.id);
        return listed.length === 3 && listed.every((m) => m.attempts >= 1) ? true : undefined;
      },
      10_000,
      "failed attempts while down",
    );
    const back = await new Receiver(port).start();
    try {
      await settled(hook.id, 3);
      const ids = new Set(back.received.map((r) => r.id));
      expect(ids.size).toBe(3);
      for (const request of back.received) verify(hook.secret!, request);
    } finally {
      await back.stop();
    }
  });

  it("signs with both secrets for the overlap after a rotation", async () => {
    const hook = await endpoint("/rotated", { event_types: ["outcome.confirmed"] });
    const rotated = await t.request("POST", `/v1/webhook-endpoints/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const { secret } = rotated.body as { secret: string };
    expect(secret).not.toBe(hook.secret);
    expect((await t.request("GET", `/v1/webhook-endpoints/${hook.id}/secret`)).body).toEqual({ secret });
    const key = await outcome("done");
    await send(key, "done");
    await settled(hook.id, 1);
    const [request] = receiver.on("/rotated");
    expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(secret, request!)).toMatchObject({ type: "outcome.confirmed" });
    expect(verify(hook.secret!, request!)).toMatchObject({ type: "outcome.confirmed" });
    expect(() => verify(`whsec_${randomBytes(32).toString("base64")}`, request!)).toThrow();
  });

  it("leaves the outbox empty for an account without endpoints", async () => {
    const other = await t.newAccount();
    const as = (method: string, path: string, body?: unknown): ReturnType<TestApp["request"]> =>
      t.request(method, path, body, other.token);
    expect((await as("PUT", "/v1/tasks/quiet", { name: "q", goal: null, condition: "done" })).status).toBe(201);
    const keys = Array.from({ length: 250 }, (_, i) => `quiet-${i}`);
    for (const key of keys) expect((await as("POST", "/v1/outcomes", { key, task_key: "quiet" })).status).toBe(201);
    expect(
      (await as("POST", "/v1/events/batch", { events: keys.map((key) => ({ outcome_key: key, action: "done" })) }))
        .status,
    ).toBe(202);
    await eventually(
      async () => {
        const listed = (await as("GET", "/v1/outcomes?status=CONFIRMED&limit=1000")).body as { outcomes: unknown[] };
        return listed.outcomes.length === keys.length ? true : undefined;
      },
      20_000,
      "every verdict committed",
    );
    await outboxesDrained();
  });

  it("deletes an outbox entry it cannot read and delivers the verdicts behind it", async () => {
    const hook = await endpoint("/behind-garbage", { event_types: ["outcome.confirmed"] });
    // Entries no commit writes, at the head of every shard's outbox: one without a notification, one garbled.
    for (const key of outboxKeys()) {
      await t.app.redis.xadd(key, "*", "x", "no notification");
      await t.app.redis.xadd(key, "*", "d", Buffer.from([0xc1, 0xff, 0x00]));
    }
    const keys = await Promise.all(Array.from({ length: 20 }, () => outcome("done")));
    for (const key of keys) await send(key, "done");
    const delivered = await settled(hook.id, keys.length);
    expect(new Set(delivered.map((m) => (m.payload.data as { key: string }).key))).toEqual(new Set(keys));
    await outboxesDrained();
  });
});
