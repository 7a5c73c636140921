// OpenTelemetry: the SDK is started here, by the entry point only, when an OTLP endpoint is configured;
// everything else depends on @opentelemetry/api alone and costs nothing when tracing is off (each helper
// below returns at once then).
//
// The trace context crosses the queue: the ingress writes the W3C `traceparent` of each sampled request
// into the event's envelope, and the worker links its batch span to every event's request and opens a
// span in the event's own trace, so a trace viewer shows HTTP 202 -> enqueue -> applied.
import { propagation, ROOT_CONTEXT, SpanKind, trace, type Link, type Span, type SpanContext, type SpanOptions, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor, SamplingDecision, type Sampler } from "@opentelemetry/sdk-trace-base";
import { samplerFromEnv } from "./sampler-from-env.js";
import { SynchronousContextManager } from "./synchronous-context-manager.js";
import { TraceIds } from "./trace-ids.js";

/** While tracing runs: the SDK's sampler and id generator, which startRequestSpan consults first. */
let running: { sampler: Sampler; ids: TraceIds } | undefined;

/** True once `startTracing` ran in this process: the only switch the hot paths look at. */
export function tracingEnabled(): boolean {
  return running !== undefined;
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
 * (or ..._TRACES_ENDPOINT) and ..._HEADERS, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (which win over
 * the defaults set here); OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG are read from `env` here, so the
 * ingress can ask the very sampler the SDK uses (see startRequestSpan).
 */
export function startTracing(role: string, env: Readonly<Record<string, string | undefined>>): Tracing {
  const sampler = samplerFromEnv(env);
  const ids = new TraceIds();
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ "service.name": "verdict", "verdict.role": role }),
    resourceDetectors: [envDetector],
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    sampler,
    idGenerator: ids,
    // Metrics go through prom-client's /metrics, logs through pino: nothing else to export.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    // The ingress passes spans explicitly (see traceparentOf); the worker's spans nest across awaits
    // (startActiveSpan), so it keeps the SDK's AsyncLocalStorage manager (undefined: the default).
    ...(role === "ingress" && { contextManager: new SynchronousContextManager() }),
  });
  sdk.start();
  running = { sampler, ids };
  return {
    stop: async () => {
      running = undefined;
      await sdk.shutdown();
    },
  };
}

/**
 * The span of an HTTP request, or undefined when tracing is off or the sampler drops the request. Without
 * a caller's trace (`traceparent` header), the request is put to the sampler before any span exists, with
 * the trace id its span would get, so the SDK's own decision is the same: an unsampled request, 99% of
 * them at 1% sampling, then costs one sampler call instead of a span (ids, attributes, a non-recording
 * span object), which was most of what tracing cost the ingress. With a caller's trace the SDK decides.
 * `header` reads a request header: tracestate is read only when there is a traceparent to go with it.
 */
export function startRequestSpan(method: string, route: string, header: (name: string) => string): Span | undefined {
  if (running === undefined) return undefined;
  const { sampler, ids } = running;
  const name = `${method} ${route}`;
  const traceparent = header("traceparent");
  const parent = traceparent === "" ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent, tracestate: header("tracestate") });
  if (trace.getSpanContext(parent) === undefined) {
    // No attributes: the specification's samplers decide on the trace id (and a parent) alone.
    const { decision } = sampler.shouldSample(ROOT_CONTEXT, ids.nextTraceId(), name, SpanKind.SERVER, {}, []);
    if (decision === SamplingDecision.NOT_RECORD) {
      ids.forgetNextTraceId();
      return undefined;
    }
  }
  try {
    return tracer().startSpan(name, { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "http.route": route } }, parent);
  } finally {
    // Taken by the span's trace id, or left over when the SDK made none (tracing suppressed).
    ids.forgetNextTraceId();
  }
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

/**
 * A span for work done on behalf of sampled requests (their traceparents), or undefined when there are
 * none: a child of the first, so it is sampled as its request was and shows under it in a trace viewer,
 * and linked to every one of them. Work that carries no sampled request gets no span: nobody could reach
 * it from a request, and at 1% sampling creating one per call cost the ingress more than the spans it kept.
 */
export function startCallerSpan(name: string, callers: readonly string[], options: Omit<SpanOptions, "links">): Span | undefined {
  const links = linksTo(callers);
  if (links.length === 0) return undefined;
  return tracer().startSpan(name, { ...options, links }, trace.setSpanContext(ROOT_CONTEXT, links[0]!.context));
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
