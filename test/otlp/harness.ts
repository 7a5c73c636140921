// What the OTLP suites share: the real OpenTelemetry JS SDK exporting to a Verdict, and reading back what
// each outcome's event log holds once the worker has applied it.
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { CompressionAlgorithm } from "@opentelemetry/otlp-exporter-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Tracer } from "@opentelemetry/api";
import { eventually, type TestApp } from "../support/app.js";

export interface LoggedEvent {
  action: string;
  properties: Record<string, unknown>;
  idempotency_key: string | null;
}

export interface SdkOptions {
  /** http://host:port of a Verdict (or a proxy in front of one). */
  base: string;
  token: string;
  encoding: "protobuf" | "json";
  gzip: boolean;
  resource: Record<string, string>;
  /** Spans per export request (the SDK's default is 512). */
  batchSize?: number;
  /** The exporter's budget for one batch, its retries included (the SDK's default is 10 s). */
  timeoutMillis?: number;
  /** Processors beside the exporting one (say, a recorder of what was emitted). */
  also?: SpanProcessor[];
}

export interface SdkPipeline {
  tracer: Tracer;
  provider: BasicTracerProvider;
  /** Exports every ended span, retries included. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** A tracer provider whose spans the SDK's own OTLP/HTTP exporter sends to `base`/v1/traces in batches. */
export function sdkPipeline(options: SdkOptions): SdkPipeline {
  const config = {
    url: `${options.base}/v1/traces`,
    headers: { Authorization: `Bearer ${options.token}` },
    compression: options.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
    timeoutMillis: options.timeoutMillis ?? 10_000,
  };
  const exporter = options.encoding === "protobuf" ? new ProtoExporter(config) : new JsonExporter(config);
  const batchSize = options.batchSize ?? 512;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(options.resource),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxExportBatchSize: batchSize,
        maxQueueSize: 100_000,
        scheduledDelayMillis: 50,
        exportTimeoutMillis: 2 * config.timeoutMillis,
      }),
      ...(options.also ?? []),
    ],
  });
  return {
    tracer: provider.getTracer("verdict-otlp-test"),
    provider,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** One page after another of an outcome's event log. */
export async function eventLog(t: TestApp, key: string): Promise<LoggedEvent[] | undefined> {
  const events: LoggedEvent[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `&cursor=${cursor}`;
    const page = await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}/events?limit=1000${query}`);
    if (page.status === 404) return undefined;
    const body = page.body as { events: LoggedEvent[]; next_cursor: string | null };
    events.push(...body.events);
    cursor = body.next_cursor;
  } while (cursor !== null);
  return events;
}

/** The event log of each key once it holds at least `expected(key)` events. */
export async function eventLogs(
  t: TestApp,
  keys: string[],
  expected: (key: string) => number,
  timeoutMs = 30_000,
): Promise<Map<string, LoggedEvent[]>> {
  const logs = new Map<string, LoggedEvent[]>();
  await eventually(
    async () => {
      for (const key of keys) {
        if ((logs.get(key)?.length ?? -1) >= expected(key)) continue;
        const log = await eventLog(t, key);
        if (log === undefined || log.length < expected(key)) return undefined;
        logs.set(key, log);
      }
      return true;
    },
    timeoutMs,
    `the event logs of ${keys.length} outcomes`,
  );
  return logs;
}

/** Waits a little longer than it takes the worker to apply a stray second copy, so "exactly once" means it. */
export const settle = (ms = 500): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
