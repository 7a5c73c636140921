// "An endpoint failing everything for 5 days is disabled", proven with the period configured to 1.5 s
// (VERDICT_WEBHOOK_DISABLE_AFTER): the clock starts at the first failure after the last success, the
// endpoint is disabled at its first attempt past the period and not before, its messages then wait, and
// enabling it again starts a fresh period. Judged from the attempts' own recorded timestamps.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { Receiver } from "./receiver.js";

const PERIOD_MS = 1500;
/** Quick retries, more than the test can use up: messages never fail for running out of attempts. */
const SCHEDULE_MS = Array.from({ length: 40 }, () => 150);

interface Message {
  id: string;
  status: string;
  attempts: number;
}

interface Attempt {
  timestamp: string;
  status_code: number | null;
}

describe("webhook endpoint failing for the configured period", () => {
  let t: TestApp;
  let receiver: Receiver;
  let failing = true;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    receiver.respond = () => (failing ? { status: 500, body: "down" } : { status: 200, body: "ok" });
    t = await startTestApp("standalone", {
      webhookAllowPrivateUrls: true,
      webhookRetryScheduleMs: SCHEDULE_MS,
      webhookDisableAfterMs: PERIOD_MS,
    });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  async function confirmAnOutcome(): Promise<void> {
    const key = `ticket-${randomBytes(4).toString("hex")}`;
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: "done-task" })).status).toBe(201);
    expect((await t.request("POST", "/v1/events", { outcome_key: key, action: "done" })).status).toBe(202);
  }

  async function messages(endpointId: string): Promise<Message[]> {
    return ((await t.request("GET", `/v1/webhook-endpoints/${endpointId}/messages`)).body as { messages: Message[] })
      .messages;
  }

  /** The attempts' start times (ms) and statuses. */
  async function attempts(endpointId: string, messageId: string): Promise<{ at: number; status: number | null }[]> {
    const listed = (await t.request("GET", `/v1/webhook-endpoints/${endpointId}/messages/${messageId}/attempts`))
      .body as { attempts: Attempt[] };
    return listed.attempts.map((attempt) => ({ at: Date.parse(attempt.timestamp), status: attempt.status_code }));
  }

  async function enabled(endpointId: string): Promise<boolean> {
    return ((await t.request("GET", `/v1/webhook-endpoints/${endpointId}`)).body as { enabled: boolean }).enabled;
  }

  function disabled(endpointId: string): Promise<true> {
    return eventually(async () => ((await enabled(endpointId)) ? undefined : true), 20_000, "the endpoint disabled");
  }

  it("disables only after the period of failures since the last success, and again a period after it is enabled", async () => {
    expect((await t.request("PUT", "/v1/tasks/done-task", { name: "Done", condition: "done" })).status).toBe(201);
    const created = await t.request("POST", "/v1/webhook-endpoints", { url: receiver.url("/failing") });
    const endpointId = (created.body as { id: string }).id;

    // A first message fails a few times, then is delivered: the endpoint is not failing everything.
    await confirmAnOutcome();
    const [first] = await eventually(
      async () => {
        const listed = await messages(endpointId);
        return (listed[0]?.attempts ?? 0) >= 4 ? listed : undefined;
      },
      20_000,
      "four failed attempts",
    );
    failing = false;
    await eventually(
      async () => ((await messages(endpointId))[0]?.status === "delivered" ? true : undefined),
      20_000,
      "the first message delivered",
    );
    const firstAttempts = await attempts(endpointId, first!.id);
    const firstFailure = firstAttempts[0]!.at;
    const success = firstAttempts[firstAttempts.length - 1]!;
    expect(success.status).toBe(200);
    // Delivered inside the period, so had the success not restarted the clock the next failures would disable at once.
    expect(success.at - firstFailure).toBeLessThan(PERIOD_MS);

    // Then everything fails: disabled at the first attempt a full period after the first new failure.
    failing = true;
    await confirmAnOutcome();
    await disabled(endpointId);
    const second = (await messages(endpointId)).find((message) => message.id !== first!.id)!;
    const tried = await attempts(endpointId, second.id);
    expect(tried.every((attempt) => attempt.status === 500)).toBe(true);
    const since = tried[0]!.at;
    const last = tried[tried.length - 1]!.at;
    const beforeLast = tried[tried.length - 2]!.at;
    expect(last - since).toBeGreaterThanOrEqual(PERIOD_MS);
    expect(beforeLast - since).toBeLessThan(PERIOD_MS);
    // An attempt past the first failure's deadline left it enabled: the success reset the clock.
    expect(beforeLast - firstFailure).toBeGreaterThanOrEqual(PERIOD_MS);

    // Disabled: the message waits (still pending) and nothing more is sent.
    const sentBefore = receiver.on("/failing").length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.on("/failing").length).toBe(sentBefore);
    expect((await messages(endpointId)).find((message) => message.id === second.id)).toMatchObject({
      status: "pending",
      attempts: tried.length,
    });

    // Enabled again: a fresh period, not disabled again at its next failure.
    expect((await t.request("PATCH", `/v1/webhook-endpoints/${endpointId}`, { enabled: true })).status).toBe(200);
    await disabled(endpointId);
    const after = (await attempts(endpointId, second.id)).slice(tried.length);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(after[after.length - 1]!.at - after[0]!.at).toBeGreaterThanOrEqual(PERIOD_MS);
  });
});
