// Prometheus metrics of one running app: its own registry, so several apps in one process (tests) stay apart.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  registry: Registry;
  /** HTTP requests answered, by route pattern, method and status. */
  httpRequests: Counter<"route" | "method" | "status">;
  /** Events by what became of them at the edge: accepted, duplicate, rejected, unconfirmed. */
  events: Counter<"result">;
  /** Latency of enqueue script calls, by outcome (ok, backlog, rejected, unconfirmed, replicas: WAIT fell short). */
  enqueueSeconds: Histogram<"outcome">;
  /** Events carried per enqueue script call (how well group commit coalesces). */
  enqueueCallEvents: Histogram;
  /** Lua script calls sent to Redis, by script name: the round trips that carry Verdict's writes. */
  redisScriptCalls: Counter<"script">;
  /** Redis's used_memory, per master node (sampled with INFO memory on a timer). */
  redisUsedMemory: Gauge<"node">;
  /** Redis's maxmemory (0: no limit), per master node. */
  redisMaxMemory: Gauge<"node">;
  /** Renders of a live outcome view: one per change, shared by all its open pages. */
  dashboardLiveRenders: Counter;
}

/**
 * 1 in every process: the supervisor's merged /metrics omits prom-client's process_start_time_seconds but sums
 * gauges, so this counts the processes behind any /metrics, supervised or not.
 */
function processCount(registry: Registry): void {
  new Gauge({
    name: "verdict_processes",
    help: "Verdict processes behind this /metrics endpoint, by role",
    registers: [registry],
  }).set(1);
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "verdict_" });
  processCount(registry);
  return {
    registry,
    httpRequests: new Counter({
      name: "verdict_http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status",
      labelNames: ["route", "method", "status"],
      registers: [registry],
    }),
    events: new Counter({
      name: "verdict_events_total",
      help: "Events received at the edge, by result: accepted, duplicate, rejected, unconfirmed, rate_limited",
      labelNames: ["result"],
      registers: [registry],
    }),
    enqueueSeconds: new Histogram({
      name: "verdict_enqueue_seconds",
      help: "Latency of one enqueue script call, by outcome: ok, backlog, rejected, unconfirmed, replicas (too few replicas acknowledged)",
      labelNames: ["outcome"],
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    enqueueCallEvents: new Histogram({
      name: "verdict_enqueue_call_events",
      help: "Events carried by one enqueue script call",
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
      registers: [registry],
    }),
    redisScriptCalls: new Counter({
      name: "verdict_redis_script_calls_total",
      help: "Lua script calls sent to Redis (one round trip each), by script name",
      labelNames: ["script"],
      registers: [registry],
    }),
    redisUsedMemory: new Gauge({
      name: "verdict_redis_used_memory_bytes",
      help: "Memory used by a Redis master (INFO memory used_memory), by node",
      labelNames: ["node"],
      // Every process samples the same nodes: the supervisor keeps one value per node, not their sum.
      aggregator: "max",
      registers: [registry],
    }),
    redisMaxMemory: new Gauge({
      name: "verdict_redis_maxmemory_bytes",
      help: "A Redis master's maxmemory (INFO memory maxmemory; 0 means no limit), by node",
      labelNames: ["node"],
      // Every process samples the same nodes: the supervisor keeps one value per node, not their sum.
      aggregator: "max",
      registers: [registry],
    }),
    dashboardLiveRenders: new Counter({
      name: "verdict_dashboard_live_renders_total",
      help: "Renders of a live outcome view in the dashboard: one per change, shared by all pages showing it",
      registers: [registry],
    }),
  };
}

/**
 * One labelled child per value of a one-label metric, resolved once: prom-client's labels() hashes the
 * label set on every call, which on a per-request path costs more than the count itself. The children
 * exist from the start, so their series read 0 before their first event.
 */
export function childrenByLabel<V extends string, Child>(
  metric: { labels(...values: string[]): Child },
  values: readonly V[],
): Record<V, Child> {
  return Object.fromEntries(values.map((value) => [value, metric.labels(value)])) as Record<V, Child>;
}
