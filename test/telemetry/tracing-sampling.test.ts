// Tracing at a sampling ratio, on the ingress role: the ingress asks the sampler about a request before it
// makes a span, with the trace id that span then gets, so the SDK agrees with every decision. Sampled
// requests, and only they, export a span and carry their traceparent into the envelope; each enqueue span
// is a child of a sampled request it carries and links to it.
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { SamplingDecision, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/streams/shard.js";
import { startTracing, type Tracing } from "../../src/telemetry/tracing.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";
import { streamEvents } from "../support/streams.js";

const RATIO = 0.5;
const EVENTS = 40;

describe("tracing at a sampling ratio (ingress role)", () => {
  let receiver: OtlpReceiver;
  let t: TestApp;
  let tracing: Tracing;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    // Export finished spans within 100 ms instead of the default 5 s.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
    tracing = startTracing("ingress", {
      ...process.env,
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: String(RATIO),
    });
    t = await startTestApp("standalone", { role: "ingress", shards: 4 });
  });
  afterAll(async () => {
    await t.stop();
    await tracing.stop();
    receiver.server.close();
  });

  it("exports the sampled requests, each with the traceparent in its envelope, and enqueue spans under them", async () => {
    for (let i = 0; i < EVENTS; i++) {
      expect((await t.request("POST", "/v1/events", { outcome_key: "sampled", action: "step" })).status).toBe(202);
    }
    const stream = t.app.keys.stream(shardOf(t.accountId, "sampled", t.options.shards));
    const envelopes = (await streamEvents(t.app.redis, stream)).map((e) => e.envelope);
    expect(envelopes).toHaveLength(EVENTS);
    const carried = envelopes.flatMap((e) => (e.traceparent === undefined ? [] : [e.traceparent.split("-")[1]!]));
    // 40 fair draws: all or none sampled has odds of 2 in 2^40.
    expect(carried.length).toBeGreaterThan(0);
    expect(carried.length).toBeLessThan(EVENTS);

    const requests = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 50));
        const found = receiver.spans().filter((s) => s.name === "POST /v1/events");
        return found.length >= carried.length ? found : undefined;
      },
      15_000,
      "a span per sampled request",
    );
    expect(requests.map((s) => s.traceId).sort()).toEqual([...carried].sort());
    // The SDK's own decision on each trace id is the one the ingress made before the span existed.
    const sampler = new TraceIdRatioBasedSampler(RATIO);
    for (const request of requests)
      expect(sampler.shouldSample(ROOT_CONTEXT, request.traceId).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);

    await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 50));
        const enqueues = receiver.spans().filter((s) => s.name === "enqueue");
        const covered = new Set(enqueues.flatMap((s) => (s.links ?? []).map((l) => l.spanId)));
        return requests.every((r) => covered.has(r.spanId)) ? true : undefined;
      },
      15_000,
      "every sampled request linked from an enqueue span",
    );
    for (const enqueue of receiver.spans().filter((s) => s.name === "enqueue")) {
      const parent = requests.find((r) => r.spanId === enqueue.parentSpanId);
      expect(parent).toBeDefined();
      expect(enqueue.traceId).toBe(parent!.traceId);
      expect(enqueue.links?.some((l) => l.spanId === parent!.spanId)).toBe(true);
    }
  });
});
