// Tracing end to end against a real OTLP/HTTP receiver (test/support/otlp-receiver.ts, JSON encoding): off, the
// envelope carries no trace context and nothing is exported; on, one event's request span, its enqueue
// call, the worker's batch and the event's "apply event" span are tied together by trace id and links,
// and the account id is an attribute while the token is nowhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/streams/shard.js";
import { startTracing, type Tracing } from "../../src/telemetry/tracing.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { attribute, startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from "../support/otlp-receiver.js";
import { streamEvents } from "../support/streams.js";

describe("tracing (standalone)", () => {
  let receiver: OtlpReceiver;
  let t: TestApp;
  let tracing: Tracing | undefined;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_SERVICE_NAME = "verdict-under-test";
    // Export finished spans within 100 ms instead of the default 5 s.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
    t = await startTestApp("standalone", { shards: 4 });
    expect((await t.request("PUT", "/v1/tasks/traced", { name: "traced", condition: "done" })).status).toBe(201);
  });
  afterAll(async () => {
    await t.stop();
    await tracing?.stop();
    receiver.server.close();
  });

  const spans = (): OtlpSpan[] => receiver.spans();

  it("off: the envelope carries no trace context and nothing is exported", async () => {
    expect((await t.request("POST", "/v1/outcomes", { key: "off", task_key: "traced" })).status).toBe(201);
    expect((await t.request("POST", "/v1/events", { outcome_key: "off", action: "step" })).status).toBe(202);
    const stream = t.app.keys.stream(shardOf(t.accountId, "off", t.options.shards));
    const events = await streamEvents(t.app.redis, stream);
    expect(events.map((e) => e.envelope.outcomeKey)).toContain("off");
    expect(events.every((e) => e.envelope.traceparent === undefined)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.raw).toEqual([]);
  });

  it("on: request, enqueue, batch and the applied event are one story across the queue", async () => {
    tracing = startTracing("all", process.env);
    expect((await t.request("POST", "/v1/outcomes", { key: "on", task_key: "traced" })).status).toBe(201);
    expect((await t.request("POST", "/v1/events", { outcome_key: "on", action: "done" })).status).toBe(202);

    const apply = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 50));
        return spans().find((s) => s.name === "apply event" && attribute(s, "verdict.outcome.status") === "CONFIRMED");
      },
      15_000,
      "the applied event's span",
    );
    const request = spans().find((s) => s.spanId === apply.parentSpanId);
    expect(request).toBeDefined();
    expect(request!.name).toBe("POST /v1/events");
    expect(request!.traceId).toBe(apply.traceId);
    expect(attribute(request!, "http.route")).toBe("/v1/events");
    expect(attribute(request!, "http.request.method")).toBe("POST");
    expect(attribute(request!, "http.response.status_code")).toBe(202);
    expect(attribute(request!, "verdict.account_id")).toBe(t.accountId);

    const linksToRequest = (s: OtlpSpan): boolean =>
      (s.links ?? []).some((l) => l.traceId === request!.traceId && l.spanId === request!.spanId);
    await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 50));
        return spans().some((s) => s.name === "enqueue" && linksToRequest(s)) &&
          spans().some((s) => s.name === "shard.batch" && linksToRequest(s))
          ? true
          : undefined;
      },
      15_000,
      "enqueue and batch spans linked to the request",
    );
    expect(spans().some((s) => s.name === "shard.commit")).toBe(true);

    const resource = receiver.exports[0]!.resourceSpans[0]!.resource.attributes;
    expect(resource.find((a) => a.key === "service.name")?.value.stringValue).toBe("verdict-under-test");
    // The token never leaves the process in a span.
    expect(receiver.raw.some((body) => body.includes(t.token))).toBe(false);
  });

  it("continues a caller's trace: a traceparent header makes the caller's span the request's parent", async () => {
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const callerSpan = "b7ad6b7169203331";
    const response = await fetch(`${t.base}/v1/events`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.token}`,
        "content-type": "application/json",
        traceparent: `00-${traceId}-${callerSpan}-01`,
      },
      body: JSON.stringify({ outcome_key: "on", action: "late" }),
    });
    expect(response.status).toBe(202);
    const request = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 50));
        return spans().find((s) => s.name === "POST /v1/events" && s.traceId === traceId);
      },
      15_000,
      "the request span in the caller's trace",
    );
    expect(request.parentSpanId).toBe(callerSpan);
  });
});
