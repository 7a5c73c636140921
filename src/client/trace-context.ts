// W3C `traceparent` from the caller's active OpenTelemetry span, so a fleet's trace continues into Verdict's.
// `@opentelemetry/api` is loaded by dynamic import when installed; without it the client sends no header.

type OtelApi = typeof import("@opentelemetry/api");

let api: OtelApi | undefined;
let loading: Promise<void> | undefined;

/** Starts loading the API once; until it resolves (a few milliseconds) requests carry no `traceparent`. */
export function loadTraceApi(): Promise<void> {
  loading ??= import("@opentelemetry/api").then(
    (module) => {
      api = module;
    },
    () => {
      // Not installed: tracing is the caller's option, not a requirement.
    },
  );
  return loading;
}

/** The active span's `traceparent`, or undefined when there is no valid active span. */
export function activeTraceparent(): string | undefined {
  const span = api?.trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!api!.isSpanContextValid(span.spanContext())) return undefined;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}
