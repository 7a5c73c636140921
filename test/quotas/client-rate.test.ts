// verdict/client against the events-per-second quota: items refused for rate wait and go again, without
// counting as attempts, until every event is delivered, in track order per outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerdictClient, type VerdictError } from "../../src/client/index.js";
import { DEFAULT_QUOTAS } from "../../src/config/quotas.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

const RATE = 100;
const EVENTS = 600;
const OUTCOMES = 6;

interface LoggedEvent {
  properties: { seq: number };
}

describe("client under the events-per-second quota", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("standalone", { quotas: { ...DEFAULT_QUOTAS, eventsPerSecond: RATE, eventBurst: RATE } });
    expect((await t.request("PUT", "/v1/tasks/slow", { name: "slow", condition: "never_sent" })).status).toBe(201);
  });
  afterAll(() => t?.stop());

  async function logOf(key: string): Promise<number[]> {
    return eventually(
      async () => {
        const page = (await t.request("GET", `/v1/outcomes/${key}/events?limit=1000`)).body as {
          events: LoggedEvent[];
        };
        return page.events.length >= EVENTS / OUTCOMES ? page.events.map((e) => e.properties.seq) : undefined;
      },
      30_000,
      `the events of ${key}`,
    );
  }

  it("backs off on rate_limited items and delivers every event, in order, though each may be sent only twice", async () => {
    const outcomes = Array.from({ length: OUTCOMES }, (_, i) => `rated-${i}`);
    for (const key of outcomes)
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "slow" })).status).toBe(201);
    const errors: VerdictError[] = [];
    const client = new VerdictClient({
      baseUrl: t.base,
      token: t.token,
      maxBatchSize: 100,
      retry: { maxAttempts: 2 },
      onError: (error) => errors.push(error),
    });
    const tracked: Promise<void>[] = [];
    for (let seq = 0; seq < EVENTS; seq++)
      tracked.push(client.track({ outcome_key: outcomes[seq % OUTCOMES]!, action: "step", properties: { seq } }));
    await client.close();
    const settled = await Promise.allSettled(tracked);
    expect(settled.filter((s) => s.status === "rejected")).toEqual([]);
    // More events than the bucket holds went at once: some were refused for rate, and sent again.
    expect(errors.some((error) => error.code === "QUOTA_EXCEEDED")).toBe(true);
    expect(client.stats()).toMatchObject({ accepted: EVENTS, rejected: 0 });
    for (const [i, key] of outcomes.entries()) {
      expect(await logOf(key)).toEqual(Array.from({ length: EVENTS / OUTCOMES }, (_, n) => n * OUTCOMES + i));
    }
  });
});
