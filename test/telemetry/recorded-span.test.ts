// The ingress's RecordedSpan against the SDK's span: given the same ids and the same calls, the OTLP
// exporter sends the same thing for both (times aside), through a real OTLP/HTTP receiver; and it keeps
// the API's rules (nothing changes after the end, OK is final, invalid attribute values are dropped, an
// end before the start is a zero duration).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
import { ExportResultCode, TraceState, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordedSpan, sampledContext, type SpanSink } from "../../src/telemetry/recorded-span.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";

const resource = resourceFromAttributes({ "service.name": "verdict-under-test", "verdict.role": "ingress" });

/** A sink that keeps what ends, as the batch processor would be handed it. */
function collectingSink(): SpanSink & { ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  return { ended, resource, processor: { onEnd: (span) => ended.push(span) } };
}

const caller: SpanContext = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState("vendor=value"),
};
const other: SpanContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
};
const links: Link[] = [{ context: caller }, { context: other, attributes: { "link.kind": "caller" } }];
const attributes: Attributes = {
  "http.route": "/v1/events",
  "http.response.status_code": 202,
  ok: true,
  ratio: 0.5,
  tags: ["a", "b"],
};

/** The same calls on either kind of span (one error: its stack names where it was made). */
const boom = new TypeError("boom");
function drive(span: Span): void {
  span.setAttribute("verdict.account_id", "acct_1");
  span.addEvent("retry", { attempt: 2 });
  span.recordException(boom);
  span.setStatus({ code: SpanStatusCode.ERROR, message: "unconfirmed" });
  span.end();
}

/** What the OTLP exporter sends for `spans`, parsed, with every time taken out. */
async function sent(receiver: OtlpReceiver, spans: ReadableSpan[]): Promise<unknown> {
  const before = receiver.raw.length;
  const exporter = new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` });
  const result = await new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));
  await exporter.shutdown();
  expect(result.code).toBe(ExportResultCode.SUCCESS);
  return JSON.parse(receiver.raw[before]!, (key, value: unknown) => (/UnixNano$/.test(key) ? undefined : value));
}

describe("RecordedSpan", () => {
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => {
    receiver.server.close();
  });

  it("sends what the SDK's span sends for the same ids and calls", async () => {
    const memory = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer(
      "verdict",
    );
    // A child of a caller's span with links, as the enqueue span is.
    const sdkSpan = tracer.startSpan(
      "enqueue",
      { kind: SpanKind.CLIENT, attributes, links },
      trace.setSpanContext(ROOT_CONTEXT, caller),
    );
    drive(sdkSpan);
    const [fromSdk] = memory.getFinishedSpans();

    const sink = collectingSink();
    const context = sampledContext(caller.traceId, sdkSpan.spanContext().spanId, caller);
    drive(new RecordedSpan(sink, "enqueue", SpanKind.CLIENT, context, caller, attributes, links));
    expect(sink.ended).toHaveLength(1);

    const expected = await sent(receiver, [fromSdk!]);
    expect(JSON.stringify(expected)).toContain('"traceState":"vendor=value"');
    expect(JSON.stringify(expected)).toContain("exception.stacktrace");
    expect(await sent(receiver, sink.ended)).toEqual(expected);
  });

  it("keeps the API's rules: nothing after the end, OK final, invalid values dropped", () => {
    const sink = collectingSink();
    const span = new RecordedSpan(
      sink,
      "POST /v1/events",
      SpanKind.SERVER,
      sampledContext(other.traceId, "1111111111111111"),
      undefined,
    );
    span.setAttribute("kept", "yes");
    span.setAttribute("object", { not: "an attribute value" } as never);
    span.setAttribute("undefined", undefined as never);
    span.setStatus({ code: SpanStatusCode.OK });
    span.setStatus({ code: SpanStatusCode.ERROR, message: "too late" });
    expect(span.isRecording()).toBe(true);
    span.end();
    span.end();
    span.setAttribute("after", 1);
    span.addEvent("after");
    span.updateName("renamed");
    expect(span.isRecording()).toBe(false);
    expect(sink.ended).toHaveLength(1);
    const [ended] = sink.ended;
    expect(ended!.attributes).toEqual({ kept: "yes" });
    expect(ended!.status).toEqual({ code: SpanStatusCode.OK });
    expect(ended!.name).toBe("POST /v1/events");
    expect(ended!.events).toEqual([]);
    expect(ended!.parentSpanContext).toBeUndefined();
    expect(ended!.spanContext()).toEqual({
      traceId: other.traceId,
      spanId: "1111111111111111",
      traceFlags: TraceFlags.SAMPLED,
    });
    const nanos = ([s, ns]: [number, number]): bigint => BigInt(s) * 1_000_000_000n + BigInt(ns);
    expect(nanos(ended!.endTime)).toBeGreaterThanOrEqual(nanos(ended!.startTime));
    expect(nanos(ended!.duration)).toBe(nanos(ended!.endTime) - nanos(ended!.startTime));
  });

  it("takes an end time before the start as the start (a zero duration), as the SDK's span does", () => {
    const sink = collectingSink();
    const span = new RecordedSpan(
      sink,
      "enqueue",
      SpanKind.CLIENT,
      sampledContext(other.traceId, "2222222222222222"),
      other,
    );
    span.end(new Date(Date.now() - 60_000));
    const [ended] = sink.ended;
    expect(ended!.endTime).toEqual(ended!.startTime);
    expect(ended!.duration).toEqual([0, 0]);
    expect(ended!.parentSpanContext).toBe(other);
  });
});
