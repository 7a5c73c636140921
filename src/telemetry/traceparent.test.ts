// The ingress writes and reads traceparents itself (traceparentOf, spanContextOf) instead of going through
// the global propagator: both agree with the SDK's W3C propagator on every input.
import { propagation, ROOT_CONTEXT, trace, type SpanContext } from "@opentelemetry/api";
import { core } from "@opentelemetry/sdk-node";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanContextOf, traceparentOf } from "./tracing.js";

const w3c = new core.W3CTraceContextPropagator();
const getter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};
const setter = { set: (carrier: Record<string, string>, key: string, value: string) => void (carrier[key] = value) };

function extractedByW3c(traceparent: string): SpanContext | undefined {
  const spanContext = trace.getSpanContext(w3c.extract(ROOT_CONTEXT, { traceparent }, getter));
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

const hex = (length: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });
const traceId = fc.oneof(hex(32), fc.constant("0".repeat(32)));
const spanId = fc.oneof(hex(16), fc.constant("0".repeat(16)));
const flags = fc.oneof(fc.constantFrom("00", "01", "03", "ff"), hex(2));

describe("traceparents", () => {
  // As the SDK registers it (OTEL_PROPAGATORS defaults to tracecontext): other versions go through it.
  beforeAll(() => propagation.setGlobalPropagator(w3c));
  afterAll(() => propagation.disable());

  it("reads what the W3C propagator reads, valid or not, own version or another", () => {
    const texts = fc.oneof(
      fc.tuple(traceId, spanId, flags).map(([t, s, f]) => `00-${t}-${s}-${f}`),
      fc
        .tuple(fc.constantFrom("01", "cc", "ff"), traceId, spanId, flags, fc.constantFrom("", "-extra"))
        .map(([v, t, s, f, rest]) => `${v}-${t}-${s}-${f}${rest}`),
      fc.tuple(traceId, spanId).map(([t, s]) => `00-${t.toUpperCase()}-${s}-01`),
      fc.string(),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(spanContextOf(text)).toEqual(extractedByW3c(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("writes what the W3C propagator writes for a recording span", () => {
    fc.assert(
      fc.property(hex(32), hex(16), fc.constantFrom(0, 1), (t, s, f) => {
        const spanContext: SpanContext = { traceId: t, spanId: s, traceFlags: f };
        const span = { isRecording: () => true, spanContext: () => spanContext } as Parameters<typeof traceparentOf>[0];
        const carrier: Record<string, string> = {};
        w3c.inject(trace.setSpanContext(ROOT_CONTEXT, spanContext), carrier, setter);
        expect(traceparentOf(span)).toBe(carrier.traceparent);
      }),
    );
  });
});
