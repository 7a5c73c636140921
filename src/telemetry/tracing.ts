// OpenTelemetry: the SDK is started here, by the entry point only, when an OTLP endpoint is configured;
// everything else depends on @opentelemetry/api alone and costs nothing when tracing is off (each helper
// below returns at once then).
//
// The trace context crosses the queue: the ingress writes the W3C `traceparent` of each request into the
// event's envelope, and the worker links its batch span to every event's request and, for sampled events,
// opens a span in the event's own trace, so a trace viewer shows HTTP 202 -> enqueue -> applied.
import { propagation, ROOT_CONTEXT, trace, type Link, type Span, type SpanContext, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SynchronousContextManager } from "./synchronous-context-manager.js";

let enabled = false;

/** True once `startTracing` ran in this process: the only switch the hot paths look at. */
export function tracingEnabled(): boolean {
  return enabled;
}

/** The tracer library code uses; a no-op until `startTracing` registers a provider. */
export function tracer(): Tracer {
  return trace.getTracer("verdict");
}

export interface Tracing {
  stop(): Promise<void>;
}

/**
 * Starts the SDK. The exporter and SDK read the standard variables themselves: OTEL_EXPORTER_OTLP_ENDPOINT
 * (or ..._TRACES_ENDPOINT) and ..._HEADERS, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG,
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (which win over the defaults set here).
 */
export function startTracing(role: string): Tracing {
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ "service.name": "verdict", "verdict.role": role }),
    resourceDetectors: [envDetector],
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    // Metrics go through prom-client's /metrics, logs through pino: nothing else to export.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    // The ingress passes spans explicitly (see traceparentOf); the worker's spans nest across awaits
    // (startActiveSpan), so it keeps the SDK's AsyncLocalStorage manager (undefined: the default).
    ...(role === "ingress" && { contextManager: new SynchronousContextManager() }),
  });
  sdk.start();
  enabled = true;
  return {
    stop: async () => {
      enabled = false;
      await sdk.shutdown();
    },
  };
}

/**
 * The W3C traceparent of `span` when it is sampled (recorded), else undefined: an unsampled request's
 * trace is never exported, so carrying its context through the queue would cost bytes per event and links
 * nobody can follow. The span is passed, not made active: activating it (context.with) would switch on
 * AsyncLocalStorage's async hooks for every promise of the process, which cost a quarter of the ingress's
 * throughput at 1% sampling.
 */
export function traceparentOf(span: Span): string | undefined {
  if (!span.isRecording()) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** The span context a traceparent names, or undefined when it is not a valid one. */
export function spanContextOf(traceparent: string): SpanContext | undefined {
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** Links to the spans that traceparents name (invalid ones skipped). */
export function linksTo(traceparents: Iterable<string>): Link[] {
  const links: Link[] = [];
  for (const text of traceparents) {
    const spanContext = spanContextOf(text);
    if (spanContext) links.push({ context: spanContext });
  }
  return links;
}
