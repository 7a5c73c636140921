// The trace hold's record of trace keys, kept per period in one hash: a trace's keys outlive the period
// they were recorded in (moving forward while used), are gone two periods after their last use, and spans
// held before their trace's keys arrived come back once, to the request that brings the keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MappedSpan, SpanKeys } from "../../src/otlp/map-span.js";
import { TraceHold, type TraceAsk } from "../../src/otlp/trace-hold.js";
import type { RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { DEPLOYMENTS, connectTo, uniquePrefix } from "../support/redis.js";

const PERIOD = 60_000;

function span(traceId: string, spanId: string, keys: SpanKeys): MappedSpan {
  return {
    traceId,
    spanId,
    root: keys.outcome !== undefined,
    parentSpanId: "",
    startNs: 1,
    endNs: 2,
    keys,
    events: [{ action: "chat", properties: { value: 1 }, idempotencyKey: `otlp:${traceId}:${spanId}` }],
  };
}

const keyed = (traceId: string, outcome: string): TraceAsk => ({
  traceId,
  keys: { outcome, customer: "c" },
  unkeyed: [span(traceId, "a1", { outcome, customer: "c" })],
});
const unkeyed = (traceId: string, ...spanIds: string[]): TraceAsk => ({
  traceId,
  keys: undefined,
  unkeyed: spanIds.map((spanId) => span(traceId, spanId, {})),
});

describe.each(DEPLOYMENTS)("trace keys by period (%s)", (deployment) => {
  let redis: RedisClient;
  let hold: TraceHold;
  const account = "acct";

  beforeAll(async () => {
    redis = await connectTo(deployment);
    hold = new TraceHold(redis, new Keys(uniquePrefix()), {
      holdMs: 60_000,
      maxHeldSpans: 100,
      traceKeysTtlMs: PERIOD,
    });
  });
  afterAll(() => redis.disconnect());

  it("answers a keyed trace with its keys as asked, and lends them to its later spans", async () => {
    const t0 = 10 * PERIOD;
    expect(await hold.resolve(account, [keyed("t1", "o1")], t0)).toEqual([
      { status: "known", keys: { outcome: "o1", customer: "c" }, released: [] },
    ]);
    const [later] = await hold.resolve(account, [unkeyed("t1", "b2")], t0 + 10);
    expect(later).toEqual({ status: "known", keys: { outcome: "o1", customer: "c" }, released: [] });
  });

  it("keeps keys through the next period while they are used, and forgets them two periods after", async () => {
    const t0 = 20 * PERIOD + 5;
    await hold.resolve(account, [keyed("t2", "o2"), keyed("t3", "o3")], t0);
    // The next period: both found in the period before; t2's use moves it forward.
    expect((await hold.resolve(account, [unkeyed("t2", "b1")], t0 + PERIOD))[0]!.status).toBe("known");
    // Two periods on: t2 (used a period ago) is still known, t3 (unused since) is not and its span is held.
    const answers = await hold.resolve(account, [unkeyed("t2", "b2"), unkeyed("t3", "b3")], t0 + 2 * PERIOD);
    expect(answers.map((a) => a.status)).toEqual(["known", "held"]);
  });

  it("hands spans held before their trace's keys to the request that brings them, and only to it", async () => {
    const t0 = 30 * PERIOD;
    expect(await hold.resolve(account, [unkeyed("t4", "c1", "c2")], t0)).toEqual([{ status: "held" }]);
    const [answer] = await hold.resolve(account, [keyed("t4", "o4")], t0 + 5);
    expect(answer).toMatchObject({ status: "known", keys: { outcome: "o4", customer: "c" } });
    expect((answer as { released: MappedSpan[] }).released.map((s) => s.spanId).sort()).toEqual(["c1", "c2"]);
    await hold.release(account, ["t4"]);
    expect(await hold.resolve(account, [keyed("t4", "o4")], t0 + 6)).toEqual([
      { status: "known", keys: { outcome: "o4", customer: "c" }, released: [] },
    ]);
  });
});
