// The events-per-second quota: one token bucket per account in Redis, shared by every ingress process;
// single events past it are answered 429 QUOTA_EXCEEDED, batch items past it are listed as `rate_limited`,
// and one account at full rate leaves the others' buckets alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUOTAS } from "../../src/config/quotas.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { startTestApp, type TestApp } from "../support/app.js";

/** A slow refill: the bucket's size is what a test can count on, the refill adds at most this per second. */
const RATE = 1;
const BURST = 10;

interface Batch {
  accepted: number;
  failed: { index: number; reason: string }[];
}

const event = (outcome: string, i: number): object => ({ outcome_key: outcome, action: "ping", properties: { i } });

/** At most what the bucket can have granted since `started`: its size, plus the refill over the time passed. */
const mostGrantedSince = (started: number): number => BURST + Math.ceil(((performance.now() - started) / 1000) * RATE);

describe.each(DEPLOYMENTS)("events-per-second quota (%s)", (deployment) => {
  let t: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    const quotas = { ...DEFAULT_QUOTAS, eventsPerSecond: RATE, eventBurst: BURST };
    t = await startTestApp(deployment, { quotas });
    // Another ingress process of the same deployment: same keys, same token secret.
    second = await startTestApp(deployment, {
      quotas,
      role: "ingress",
      keyPrefix: t.options.keyPrefix,
      tokenSecret: t.options.tokenSecret,
    });
  });
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  it("answers single events past the bucket 429 QUOTA_EXCEEDED with Retry-After, naming the quota and its rate", async () => {
    const { token } = await t.newAccount();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => t.request("POST", "/v1/events", event("o", i), token)),
    );
    const accepted = answers.filter((a) => a.status === 202).length;
    expect(accepted).toBeGreaterThanOrEqual(BURST);
    expect(accepted).toBeLessThanOrEqual(mostGrantedSince(started));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(30 - accepted);
    expect(refused[0]!.headers.get("retry-after")).toBe("1");
    expect(refused[0]!.body).toMatchObject({
      error: { code: "QUOTA_EXCEEDED", quota: "events_per_second", limit: RATE },
    });
  });

  it("accepts a batch's first items up to the bucket and lists the rest as rate_limited", async () => {
    const { token } = await t.newAccount();
    const started = performance.now();
    const answer = await t.request(
      "POST",
      "/v1/events/batch",
      { events: Array.from({ length: 25 }, (_, i) => event(`o${i % 3}`, i)) },
      token,
    );
    expect(answer.status).toBe(202);
    const body = answer.body as Batch;
    expect(body.accepted).toBeGreaterThanOrEqual(BURST);
    expect(body.accepted).toBeLessThanOrEqual(mostGrantedSince(started));
    // The refused ones are the batch's last: nothing of an outcome is sent after an event of it is refused.
    expect(body.failed).toEqual(
      Array.from({ length: 25 - body.accepted }, (_, i) => ({ index: body.accepted + i, reason: "rate_limited" })),
    );
    expect(answer.headers.get("retry-after")).toBe("1");
  });

  it("shares one bucket between two ingress processes", async () => {
    const { token } = await t.newAccount();
    const started = performance.now();
    const [one, two] = await Promise.all(
      [t, second].map((app) =>
        app.request(
          "POST",
          "/v1/events/batch",
          { events: Array.from({ length: BURST }, (_, i) => event("shared", i)) },
          token,
        ),
      ),
    );
    const accepted = (one!.body as Batch).accepted + (two!.body as Batch).accepted;
    // Each process alone would have taken all of its batch.
    expect(accepted).toBeGreaterThanOrEqual(BURST);
    expect(accepted).toBeLessThanOrEqual(mostGrantedSince(started));
    expect(accepted).toBeLessThan(2 * BURST);
  });

  it("leaves another account's events alone while one account sends past its rate", async () => {
    const flooder = await t.newAccount();
    const other = await t.newAccount();
    const flood = await t.request(
      "POST",
      "/v1/events/batch",
      { events: Array.from({ length: 100 }, (_, i) => event("flood", i)) },
      flooder.token,
    );
    expect((flood.body as Batch).failed.length).toBeGreaterThan(0);
    const [steady, still] = await Promise.all([
      second.request(
        "POST",
        "/v1/events/batch",
        { events: Array.from({ length: BURST }, (_, i) => event("steady", i)) },
        other.token,
      ),
      t.request(
        "POST",
        "/v1/events/batch",
        { events: Array.from({ length: 50 }, (_, i) => event("flood", i)) },
        flooder.token,
      ),
    ]);
    expect(steady.body).toMatchObject({ accepted: BURST, failed: [] });
    // Refused whole before its body was read, or item by item: either way not taken.
    if (still.status === 429)
      expect(still.body).toMatchObject({ error: { code: "QUOTA_EXCEEDED", quota: "events_per_second" } });
    else expect((still.body as Batch).failed.length).toBeGreaterThan(0);
  });
});

describe("events-per-second quota before the body is read", () => {
  /** A bucket that takes a second to refill what a cut batch asked (at most a second of the rate). */
  const FAST = 100;
  let t: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    const quotas = { ...DEFAULT_QUOTAS, eventsPerSecond: FAST, eventBurst: FAST };
    t = await startTestApp("standalone", { quotas });
    second = await startTestApp("standalone", {
      quotas,
      role: "ingress",
      keyPrefix: t.options.keyPrefix,
      tokenSecret: t.options.tokenSecret,
    });
  });
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  const post = (app: TestApp, token: string, body: string): Promise<Response> =>
    fetch(`${app.base}/v1/events/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });

  it("refuses a batch of an account whose last batch was cut short, without reading it, until its bucket could hold that one", async () => {
    const { token } = await t.newAccount();
    const cut = await t.request(
      "POST",
      "/v1/events/batch",
      { events: Array.from({ length: 2 * FAST }, (_, i) => event(`dry${i % 4}`, i)) },
      token,
    );
    expect((cut.body as Batch).failed.length).toBeGreaterThan(0);
    // Not valid JSON: parsed, it would be a 400; refused before it is read, it is the rate's 429.
    const refused = await post(t, token, "{not json");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({
      error: { code: "QUOTA_EXCEEDED", quota: "events_per_second", limit: FAST },
    });
    // Another process has no memory of the cut: it asks the shared bucket, so it parses.
    expect((await post(second, token, "{not json")).status).toBe(400);
    // Once the bucket can have refilled what the cut batch asked (a second of the rate), the body is read again.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await post(t, token, "{not json")).status).toBe(400);
  });
});
