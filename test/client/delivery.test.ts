// The client's delivery (`track`, `flush`, `close`) against the real service through a fault-injecting proxy:
// every event applied once, in `track` order per outcome, whatever the network and the queue answer.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerdictClient, VerdictError, type TaskEvent } from "../../src/client/index.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { seeded, startFaultProxy, type Fault, type FaultProxy } from "./fault-proxy.js";

const unique = (label: string): string => `${label}-${randomBytes(4).toString("hex")}`;

interface LoggedEvent {
  action: string;
  properties: { seq?: number };
  idempotency_key: string | null;
}

describe("client delivery through faults", () => {
  let t: TestApp;
  let proxy: FaultProxy;
  let task: string;

  beforeAll(async () => {
    t = await startTestApp("standalone");
    proxy = await startFaultProxy(t.base, 7);
    task = unique("task");
    // A condition no test event meets: the outcomes stay open, so every event lands in their logs.
    expect(
      (await t.request("PUT", `/v1/tasks/${task}`, { name: "Client delivery", condition: "never_sent" })).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.stop();
  });

  async function openOutcomes(count: number): Promise<string[]> {
    const keys = Array.from({ length: count }, (_, i) => `${unique("o")}:${i}`);
    await Promise.all(
      keys.map(async (key) =>
        expect((await t.request("POST", "/v1/outcomes", { key, task_key: task })).status).toBe(201),
      ),
    );
    return keys;
  }

  /** The whole event log of one outcome, once the worker has applied `expected` events. */
  async function logOf(key: string, expected: number): Promise<LoggedEvent[]> {
    return eventually(
      async () => {
        const events: LoggedEvent[] = [];
        let cursor: string | null = null;
        do {
          const query: string = cursor === null ? "" : `&cursor=${cursor}`;
          const page = (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}/events?limit=1000${query}`))
            .body as { events: LoggedEvent[]; next_cursor: string | null };
          events.push(...page.events);
          cursor = page.next_cursor;
        } while (cursor !== null);
        return events.length >= expected ? events : undefined;
      },
      20_000,
      `${expected} events in ${key}'s log`,
    );
  }

  it("applies 20,000 events over 200 outcomes exactly once each, in track order, through 503, 429 and 500 answers, resets, timeouts and unconfirmed items", async () => {
    const outcomes = await openOutcomes(200);
    const random = seeded(42);
    // Each fault strikes at least once (the first batches, one each), then at random.
    const first: Fault[] = [
      { kind: "refuse", status: 503 },
      { kind: "refuse", status: 429, retryAfter: "0" },
      { kind: "refuse", status: 500 },
      { kind: "reset-after-forward" },
      { kind: "delay", ms: 700 },
      { kind: "unconfirm" },
    ];
    let batches = 0;
    proxy.setPolicy((request) => {
      if (request.path !== "/v1/events/batch") return { kind: "forward" };
      const scripted = first[batches++];
      if (scripted) return scripted;
      const draw = random();
      if (draw < 0.07) return { kind: "refuse", status: 503 };
      if (draw < 0.09) return { kind: "refuse", status: 429, retryAfter: "0" };
      if (draw < 0.1) return { kind: "refuse", status: 500 };
      if (draw < 0.2) return { kind: "reset-after-forward" };
      if (draw < 0.25) return { kind: "delay", ms: 700 };
      if (draw < 0.35) return { kind: "unconfirm" };
      return { kind: "forward" };
    });
    const errors: VerdictError[] = [];
    const client = new VerdictClient({
      baseUrl: proxy.base,
      token: t.token,
      timeoutMs: 500,
      retry: { maxAttempts: 100, baseDelayMs: 10, maxDelayMs: 200 },
      onError: (error) => errors.push(error),
    });
    const perOutcome = 100;
    const tracked: Promise<void>[] = [];
    for (let seq = 0; seq < perOutcome; seq++) {
      for (const key of outcomes) tracked.push(client.track({ outcome_key: key, action: "step", properties: { seq } }));
    }
    await client.flush();
    const results = await Promise.allSettled(tracked);
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const stats = client.stats();
    expect(stats).toMatchObject({ buffered: 0, waiting: 0, inFlight: 0, accepted: 20_000, rejected: 0 });
    // Every fault kind struck, and the client retried through each.
    expect([...proxy.refusals.keys()].sort()).toEqual([429, 500, 503]);
    expect(proxy.counts["reset-after-forward"]).toBeGreaterThan(0);
    expect(proxy.counts.delay).toBeGreaterThan(0);
    expect(proxy.counts.unconfirm).toBeGreaterThan(0);
    expect(stats.retried).toBeGreaterThan(0);
    expect(new Set(errors.map((e) => e.status))).toEqual(new Set([0, 202, 429, 500, 503]));
    expect(new Set(errors.map((e) => e.code))).toEqual(
      new Set(["QUEUE_REJECTED", "RATE_LIMITED", "INTERNAL_ERROR", "NETWORK_ERROR", "TIMEOUT", "EVENT_UNCONFIRMED"]),
    );
    await client.close();

    for (const key of outcomes) {
      const log = await logOf(key, perOutcome);
      expect(log.map((e) => e.properties.seq)).toEqual(Array.from({ length: perOutcome }, (_, i) => i));
      expect(new Set(log.map((e) => e.idempotency_key)).size).toBe(perOutcome);
    }
  }, 60_000);

  it("rejects only the event the service refused; the outcome's other events still go, in order", async () => {
    proxy.setPolicy(() => ({ kind: "forward" }));
    const [key] = await openOutcomes(1);
    const client = new VerdictClient({ baseUrl: proxy.base, token: t.token });
    const events: TaskEvent[] = [
      { outcome_key: key!, action: "step", properties: { seq: 0 } },
      { outcome_key: key!, action: "", properties: { seq: 1 } },
      { outcome_key: key!, action: "step", properties: { seq: 2 } },
    ];
    const results = await Promise.allSettled(events.map((event) => client.track(event)));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const error = (results[1] as PromiseRejectedResult).reason as VerdictError;
    expect(error).toBeInstanceOf(VerdictError);
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_ERROR", details: [{ path: "events[1].action" }] });
    expect(client.stats()).toMatchObject({ accepted: 2, rejected: 1 });
    expect((await logOf(key!, 2)).map((e) => e.properties.seq)).toEqual([0, 2]);
  });

  it("rejects without retrying when the service refuses the request itself (401)", async () => {
    proxy.setPolicy(() => ({ kind: "forward" }));
    const client = new VerdictClient({ baseUrl: proxy.base, token: "not-a-token" });
    await expect(client.track({ outcome_key: "any", action: "step" })).rejects.toMatchObject({
      status: 401,
      code: "TOKEN_INVALID",
    });
    expect(client.stats()).toMatchObject({ retried: 0, rejected: 1 });
  });

  it("waits out Retry-After before resending", async () => {
    const [key] = await openOutcomes(1);
    let refused = false;
    proxy.setPolicy((request) => {
      if (request.path !== "/v1/events/batch" || refused) return { kind: "forward" };
      refused = true;
      return { kind: "refuse", retryAfter: "1" };
    });
    const client = new VerdictClient({ baseUrl: proxy.base, token: t.token, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    const from = proxy.seen.length;
    await client.track({ outcome_key: key!, action: "step" });
    const sends = proxy.seen.slice(from).filter((r) => r.path === "/v1/events/batch");
    expect(sends).toHaveLength(2);
    expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(990);
    expect(client.stats().retried).toBe(1);
  });

  it("does not count a batch refused whole for the account's rate (429 QUOTA_EXCEEDED) as an attempt", async () => {
    const [key] = await openOutcomes(1);
    let refusals = 0;
    proxy.setPolicy((request) => {
      if (request.path !== "/v1/events/batch" || refusals === 2) return { kind: "forward" };
      refusals++;
      return { kind: "refuse", status: 429, retryAfter: "1", code: "QUOTA_EXCEEDED" };
    });
    const client = new VerdictClient({ baseUrl: proxy.base, token: t.token, retry: { maxAttempts: 1 } });
    const from = proxy.seen.length;
    await client.track({ outcome_key: key!, action: "step" });
    const sends = proxy.seen.slice(from).filter((r) => r.path === "/v1/events/batch");
    expect(sends).toHaveLength(3);
    // Each send after a refusal waits at least the second the rate's refusal asks for.
    expect(sends[2]!.at - sends[0]!.at).toBeGreaterThanOrEqual(1980);
    expect(client.stats()).toMatchObject({ accepted: 1, rejected: 0 });
  });

  it("makes track wait while the buffer is full, and lets it in as room frees", async () => {
    const [key] = await openOutcomes(1);
    proxy.setPolicy((request) => (request.path === "/v1/events/batch" ? { kind: "hold" } : { kind: "forward" }));
    const client = new VerdictClient({
      baseUrl: proxy.base,
      token: t.token,
      maxBufferedEvents: 10,
      maxBatchSize: 5,
      flushIntervalMs: 0,
    });
    const from = proxy.seen.length;
    const tracked = Array.from({ length: 25 }, (_, seq) =>
      client.track({ outcome_key: key!, action: "step", properties: { seq } }),
    );
    await eventually(() => Promise.resolve(proxy.seen.length > from ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // One outcome: one request in flight (5 events), 5 more queued behind it, 15 waiting for room.
    expect(client.stats()).toMatchObject({ buffered: 10, waiting: 15, inFlight: 1 });
    const flushed = client.flush();
    for (let round = 0; round < 5; round++) {
      await eventually(() => Promise.resolve(proxy.seen.length > from + round ? true : undefined));
      proxy.release();
    }
    proxy.setPolicy(() => ({ kind: "forward" }));
    proxy.release();
    await flushed;
    await Promise.all(tracked);
    expect(client.stats()).toMatchObject({ buffered: 0, waiting: 0, accepted: 25 });
    expect((await logOf(key!, 25)).map((e) => e.properties.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it("refuses new events after close(), once what was tracked before is settled", async () => {
    proxy.setPolicy(() => ({ kind: "forward" }));
    const [key] = await openOutcomes(1);
    const client = new VerdictClient({ baseUrl: proxy.base, token: t.token });
    const before = client.track({ outcome_key: key!, action: "step" });
    await client.close();
    await expect(before).resolves.toBeUndefined();
    await expect(client.track({ outcome_key: key!, action: "late" })).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });

  it("rejects at once an event no batch can carry or no JSON can hold, and flush still settles", async () => {
    proxy.setPolicy(() => ({ kind: "forward" }));
    const [key] = await openOutcomes(1);
    const client = new VerdictClient({ baseUrl: proxy.base, token: t.token, maxBufferedEvents: 1 });
    const ok = client.track({ outcome_key: key!, action: "step", properties: { seq: 0 } });
    // Both wait for room behind the first, so they are refused on admission, after it settled.
    const huge = client.track({ outcome_key: key!, action: "step", properties: { blob: "x".repeat(5 * 1024 * 1024) } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const circular = client.track({ outcome_key: key!, action: "step", properties: cyclic });
    const last = client.track({ outcome_key: key!, action: "step", properties: { seq: 1 } });
    const results = Promise.allSettled([ok, huge, circular, last]);
    await client.flush();
    const [first, tooLarge, notJson, second] = await results;
    expect([first?.status, second?.status]).toEqual(["fulfilled", "fulfilled"]);
    expect(tooLarge).toMatchObject({ status: "rejected", reason: { status: 0, code: "PAYLOAD_TOO_LARGE" } });
    expect(notJson).toMatchObject({ status: "rejected", reason: { status: 0, code: "VALIDATION_ERROR" } });
    expect(client.stats()).toMatchObject({ buffered: 0, waiting: 0, accepted: 2, rejected: 2 });
    // Refused on admission, its promise rejects at once: code after the next flush() sees its handler's work.
    let refused = false;
    void client
      .track({ outcome_key: key!, action: "step", properties: { blob: "x".repeat(5 * 1024 * 1024) } })
      .catch(() => {
        refused = true;
      });
    await client.flush();
    expect(refused).toBe(true);
    expect((await logOf(key!, 2)).map((e) => e.properties.seq)).toEqual([0, 1]);
  });

  it("mints a UUID v7 key only for events without one under auto, and sends none under off", async () => {
    proxy.setPolicy(() => ({ kind: "forward" }));
    const [auto, off] = await openOutcomes(2);
    const client = new VerdictClient({ baseUrl: proxy.base, token: t.token });
    const event: TaskEvent = { outcome_key: auto!, action: "step", properties: { seq: 0 } };
    await client.track(event);
    await client.track({ outcome_key: auto!, action: "step", properties: { seq: 1 }, idempotency_key: "mine" });
    // The caller's object is left as it was.
    expect(event).toEqual({ outcome_key: auto!, action: "step", properties: { seq: 0 } });
    const plain = new VerdictClient({ baseUrl: proxy.base, token: t.token, idempotency: "off" });
    await plain.track({ outcome_key: off!, action: "step", properties: { seq: 0 } });
    const [minted, mine] = await logOf(auto!, 2);
    expect(minted?.idempotency_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(mine?.idempotency_key).toBe("mine");
    expect((await logOf(off!, 1))[0]?.idempotency_key).toBeNull();
  });

  it("keeps delivering when onError throws", async () => {
    const [key] = await openOutcomes(1);
    let refused = 0;
    proxy.setPolicy((request) =>
      request.path === "/v1/events/batch" && refused++ < 2 ? { kind: "refuse", retryAfter: "0" } : { kind: "forward" },
    );
    const client = new VerdictClient({
      baseUrl: proxy.base,
      token: t.token,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      onError: () => {
        throw new Error("a logger that throws");
      },
    });
    await Promise.all([0, 1, 2].map((seq) => client.track({ outcome_key: key!, action: "step", properties: { seq } })));
    expect(client.stats()).toMatchObject({ buffered: 0, inFlight: 0, accepted: 3, rejected: 0, retried: 6 });
    expect((await logOf(key!, 3)).map((e) => e.properties.seq)).toEqual([0, 1, 2]);
  });
});
