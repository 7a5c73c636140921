// OpenTelemetry: the SDK is started here, by the entry point only, when an OTLP endpoint is configured;
// everything else depends on @opentelemetry/api alone and costs nothing when tracing is off (each helper
// below returns at once then).
//
// The trace context crosses the queue: the ingress writes the W3C `traceparent` of each sampled request
// into the event's envelope, and the worker links its batch span to every event's request and opens a
// span in the event's own trace, so a trace viewer shows HTTP 202 -> enqueue -> applied.
import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from "@opentelemetry/api";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { OffThreadExporter } from "./off-thread-exporter.js";
import { RecordedSpan, sampledContext, type SpanSink } from "./recorded-span.js";
import { samplerFromEnv, type RootSampling } from "./sampler-from-env.js";
import { SynchronousContextManager } from "./synchronous-context-manager.js";
import { TraceIds } from "./trace-ids.js";

/**
 * While tracing runs: how the SDK's sampler decides a root span, its id generator (see startRequestSpan),
 * the tracer, looked up once (through the global provider it cost every span a few lookups), and where the
 * ingress's recorded spans go (see RecordedSpan).
 */
let running: { root: RootSampling; ids: TraceIds; tracer: Tracer; sink: SpanSink } | undefined;

/** True once `startTracing` ran in this process: the only switch the hot paths look at. */
export function tracingEnabled(): boolean {
  return running !== undefined;
}

/** The tracer library code uses; a no-op until `startTracing` registers a provider. */
export function tracer(): Tracer {
  return running?.tracer ?? trace.getTracer("verdict");
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
  const { sampler, root } = samplerFromEnv(env);
  const ids = new TraceIds();
  // Built here rather than by the SDK, so the ingress's recorded spans carry the very resource its spans do.
  const resource = resourceFromAttributes({ "service.name": "verdict", "verdict.role": role }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  // Batches are encoded and sent by a worker thread (see OffThreadExporter).
  const processor = new BatchSpanProcessor(new OffThreadExporter());
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
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
  running = { root, ids, tracer: trace.getTracer("verdict"), sink: { processor, resource } };
  return {
    stop: async () => {
      running = undefined;
      await sdk.shutdown();
    },
  };
}

/** What startRequestSpan reads of a request: uWebSockets.js's HttpRequest has it. */
export interface RequestHeaders {
  getHeader(lowerCaseName: string): string;
}

/**
 * The span of an HTTP request, or undefined when tracing is off or the sampler drops the request. Without
 * a caller's trace (`traceparent` header), the request is decided before any span exists, by the sampler's
 * root rule applied to the trace id its span would get, so the decision is the SDK's own: an unsampled
 * request, 99% of them at 1% sampling, then costs a header read, four Math.random words and a comparison
 * (no span, no hex id, no name), and a sampled one is a RecordedSpan. With a caller's trace the SDK decides
 * and makes the span. tracestate is read only when there is a traceparent to go with it.
 */
export function startRequestSpan(method: string, route: string, headers: RequestHeaders): Span | undefined {
  if (running === undefined) return undefined;
  const { root, ids, sink } = running;
  const traceparent = headers.getHeader("traceparent");
  const parent =
    traceparent === ""
      ? undefined
      : propagation.extract(ROOT_CONTEXT, { traceparent, tracestate: headers.getHeader("tracestate") });
  if (parent === undefined || trace.getSpanContext(parent) === undefined) {
    if (!sampledAsRoot(root, ids)) {
      ids.forgetNextTraceId();
      return undefined;
    }
    return new RecordedSpan(
      sink,
      `${method} ${route}`,
      SpanKind.SERVER,
      sampledContext(ids.generateTraceId(), ids.generateSpanId()),
      undefined,
      requestAttributes(method, route),
    );
  }
  return tracer().startSpan(
    `${method} ${route}`,
    { kind: SpanKind.SERVER, attributes: requestAttributes(method, route) },
    parent,
  );
}

/** A request span's attributes at its start; made only for a span, never for an unsampled request. */
function requestAttributes(method: string, route: string): Attributes {
  return { "http.request.method": method, "http.route": route };
}

/** The root decision for the trace id `ids` holds ahead for the next root span. */
function sampledAsRoot(root: RootSampling, ids: TraceIds): boolean {
  return root.kind === "constant" ? root.sampled : ids.nextTraceIdAccumulation() < root.upperBound;
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
  // The W3C format, written as the SDK's propagator writes it, without its context and carrier objects:
  // the envelope field is a W3C traceparent whatever propagators OTEL_PROPAGATORS names.
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** A version-00 traceparent, the only one this service writes: trace id, span id, flags. */
const TRACEPARENT_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The span context a traceparent names, or undefined when it is not a valid one. The ingress's own
 * (version 00) are read with one regular expression; anything else goes through the W3C propagator.
 */
export function spanContextOf(traceparent: string): SpanContext | undefined {
  const own = TRACEPARENT_00.exec(traceparent);
  const spanContext = own
    ? { traceId: own[1]!, spanId: own[2]!, traceFlags: Number.parseInt(own[3]!, 16), isRemote: true }
    : trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * A span for work done on behalf of sampled requests (their traceparents), or undefined when there are
 * none or tracing is off: a child of the first, so it shows under it in a trace viewer, and linked to
 * every one of them. A RecordedSpan: the child of a sampled span is sampled under every sampler
 * OTEL_TRACES_SAMPLER names (the ratio ones decide by the trace id, which it shares). Work that carries no
 * sampled request gets no span: nobody could reach it from a request, and at 1% sampling creating one per
 * call cost the ingress more than the spans it kept.
 */
export function startCallerSpan(
  name: string,
  callers: readonly string[],
  options: Pick<SpanOptions, "kind" | "attributes">,
): Span | undefined {
  if (running === undefined) return undefined;
  const links = linksTo(callers);
  const parent = links[0]?.context;
  if (parent === undefined) return undefined;
  const { ids, sink } = running;
  return new RecordedSpan(
    sink,
    name,
    options.kind ?? SpanKind.INTERNAL,
    sampledContext(parent.traceId, ids.generateSpanId(), parent),
    parent,
    options.attributes,
    links,
  );
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
