// The OTLP parts of an ingress process, assembled: POST /v1/traces, the mapping routes, and the hold sweep.
import type { Registry } from "prom-client";
import type { VerdictOptions } from "../config/options.js";
import type { EventPipeline } from "../ingress/event-pipeline.js";
import type { Route } from "../ingress/router.js";
import { traceRoutes } from "../otlp/traces-route.js";
import { otlpMappingRoutes } from "../api/routes/otlp-mapping.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { RecordStore } from "../records/record-store.js";
import type { OutcomeStore } from "../stores/outcome-store.js";
import type { Logger } from "../telemetry/logger.js";
import { startHoldSweeper } from "../otlp/hold-sweeper.js";
import { MappingStore } from "../otlp/mapping-store.js";
import { createOtlpMetrics } from "../otlp/otlp-metrics.js";
import { OutcomeOpener } from "../otlp/outcome-opener.js";
import { TraceHold } from "../otlp/trace-hold.js";
import { TraceIngest } from "../otlp/trace-ingest.js";

/** How long a trace's keys are kept for its later spans, beyond the hold: long agent runs export for minutes. */
const TRACE_KEYS_TTL_MS = 30 * 60_000;

export interface OtlpIngressDeps {
  /** The enqueue's connection: fails fast while Redis is down, so exporters get a 503 to retry on. */
  redis: RedisClient;
  keys: Keys;
  options: Pick<VerdictOptions, "otlpHoldMs" | "otlpMaxHeldSpans" | "quotas">;
  pipeline: EventPipeline;
  outcomes: OutcomeStore;
  records: RecordStore;
  registry: Registry;
  logger: Logger;
  clock: () => number;
}

export interface OtlpIngress {
  routes: Route[];
  /** GET and PUT /v1/otlp/mapping (also among `routes`): the dashboard's page reads them in process. */
  mappingRoutes: Route[];
  stop(): Promise<void>;
}

export function startOtlpIngress(deps: OtlpIngressDeps): OtlpIngress {
  const { redis, keys, options } = deps;
  const metrics = createOtlpMetrics(deps.registry);
  const hold = new TraceHold(redis, keys, {
    holdMs: options.otlpHoldMs,
    maxHeldSpans: options.otlpMaxHeldSpans,
    traceKeysTtlMs: Math.max(TRACE_KEYS_TTL_MS, options.otlpHoldMs * 2),
  });
  const mappings = new MappingStore(redis, keys);
  const ingest = new TraceIngest({
    pipeline: deps.pipeline,
    hold,
    mappings,
    opener: new OutcomeOpener(deps.outcomes, deps.records),
    metrics,
    eventsPerSecond: options.quotas.eventsPerSecond,
  });
  const sweeper = startHoldSweeper(
    hold,
    Math.min(5000, Math.max(250, Math.floor(options.otlpHoldMs / 4))),
    deps.clock,
    metrics,
    deps.logger,
  );
  const mappingRoutes = otlpMappingRoutes(mappings);
  return { routes: [...traceRoutes(ingest), ...mappingRoutes], mappingRoutes, stop: () => sweeper.stop() };
}
