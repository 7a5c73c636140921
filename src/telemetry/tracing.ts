// OpenTelemetry: the SDK is started here, by the entry point only, when an OTLP endpoint is configured;
// everything else depends on @opentelemetry/api alone and costs nothing when tracing is off.
import { trace, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

/** The tracer library code uses; a no-op until `startTracing` registers a provider. */
export function tracer(): Tracer {
  return trace.getTracer("verdict");
}

export interface Tracing {
  stop(): Promise<void>;
}

export function startTracing(otlpEndpoint: string, role: string): Tracing {
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ "service.name": "verdict", "verdict.role": role }),
    autoDetectResources: false,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlpEndpoint.replace(/\/$/, "")}/v1/traces` }))],
    // Metrics go through prom-client's /metrics, logs through pino: nothing else to export.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return { stop: () => sdk.shutdown() };
}
