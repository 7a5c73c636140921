// "An unreachable receiver backs off as a whole", end to end: an endpoint at a port where nothing listens,
// with a queue of messages about many outcomes on one shard, is tried a round at a time (its other messages
// spend no attempts meanwhile), and once a receiver listens there every message is delivered once.
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/streams/shard.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { Receiver } from "./receiver.js";

/** The back-off's and each message's retries alike: quick, and more than the test can use up. */
const STEP_MS = 300;
const SCHEDULE_MS = Array.from({ length: 40 }, () => STEP_MS);
const MESSAGES = 40;
/** How long the receiver stays unreachable. */
const DOWN_MS = 2000;

interface Message {
  id: string;
  status: string;
  attempts: number;
}

/** A port nothing listens on (bound, then let go). */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("webhook endpoint that cannot be reached", () => {
  let t: TestApp;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    t = await startTestApp("standalone", { webhookAllowPrivateUrls: true, webhookRetryScheduleMs: SCHEDULE_MS });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  async function messages(endpointId: string): Promise<Message[]> {
    const listed = await t.request("GET", `/v1/webhook-endpoints/${endpointId}/messages?limit=100`);
    return (listed.body as { messages: Message[] }).messages;
  }

  /** Outcome keys on one shard: one queue, so a round's cut is what bounds the attempts. */
  function keysOnOneShard(n: number): string[] {
    const keys: string[] = [];
    const shard = shardOf(t.accountId, "down-0", t.options.shards);
    for (let i = 0; keys.length < n; i++) {
      const key = `down-${i}`;
      if (shardOf(t.accountId, key, t.options.shards) === shard) keys.push(key);
    }
    return keys;
  }

  it("tries one round per back-off step, then delivers every message once the receiver listens", async () => {
    const port = await closedPort();
    expect((await t.request("PUT", "/v1/tasks/down-task", { name: "Down", condition: "done" })).status).toBe(201);
    const created = await t.request("POST", "/v1/webhook-endpoints", { url: `http://127.0.0.1:${port}/hook` });
    expect(created.status).toBe(201);
    const endpointId = (created.body as { id: string }).id;

    const keys = keysOnOneShard(MESSAGES);
    for (const key of keys) {
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "down-task" })).status).toBe(201);
      expect((await t.request("POST", "/v1/events", { outcome_key: key, action: "done" })).status).toBe(202);
    }
    await eventually(
      async () => ((await messages(endpointId)).length === MESSAGES ? true : undefined),
      20_000,
      "a message per verdict",
    );
    const downSince = Date.now();
    await eventually(
      async () => ((await messages(endpointId)).some((message) => message.attempts > 0) ? true : undefined),
      20_000,
      "a first attempt",
    );
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));

    // Per step at most one round's concurrent attempts (8); one attempt per message per step without the
    // back-off. The steps are the schedule's delay (±10%) apart, so the window holds at most this many.
    const listed = await messages(endpointId);
    const elapsed = Date.now() - downSince;
    const steps = Math.ceil(elapsed / (STEP_MS * 0.9)) + 1;
    const attempts = listed.reduce((sum, message) => sum + message.attempts, 0);
    expect(attempts).toBeGreaterThan(0);
    expect(attempts).toBeLessThanOrEqual(steps * 8);
    expect(attempts).toBeLessThan(MESSAGES * 2);
    expect(listed.filter((message) => message.attempts === 0).length).toBeGreaterThan(0);
    expect(listed.every((message) => message.status === "pending")).toBe(true);

    // Reachable again: the back-off's next step finds it, and every message goes out, each once.
    receiver = await new Receiver(port).start();
    await eventually(
      async () => ((await messages(endpointId)).every((message) => message.status === "delivered") ? true : undefined),
      20_000,
      "every message delivered",
    );
    const ids = receiver.on("/hook").map((request) => request.id);
    expect(new Set(ids).size).toBe(MESSAGES);
    expect(ids.length).toBe(MESSAGES);
  });
});
