// The ingress part (roles all and ingress): the event routes, OTLP traces, the resource API and the dashboard on one
// HTTP server, with the connections enqueueing, token rotations and the liveness probe each need alone.
import { openApiRoute } from "../api/openapi.js";
import { resourceRoutes } from "../api/routes/index.js";
import { guardedByLiveness } from "../api/unavailable.js";
import { TokenVerifier } from "../auth/token-verifier.js";
import { createDashboard } from "../dashboard/dashboard.js";
import { EventPipeline } from "../ingress/event-pipeline.js";
import { EventRateLimiter } from "../ingress/event-rate.js";
import { startHttpServer } from "../ingress/http-server.js";
import type { Route } from "../ingress/router.js";
import { eventRoutes } from "../ingress/routes/events.js";
import { InsightThread } from "./insight-thread.js";
import { startOtlpIngress, type OtlpIngress } from "./otlp.js";
import { RecordStore } from "../records/record-store.js";
import type { RedisClient } from "../redis/client.js";
import { openClient, openShardSubscriber } from "../redis/connect.js";
import { RedisLiveness } from "../redis/liveness.js";
import type { Lifecycle } from "../runtime/lifecycle.js";
import { OutcomeStore } from "../stores/outcome-store.js";
import { ShardEnqueuer } from "../streams/enqueue.js";
import { childrenByLabel } from "../telemetry/metrics.js";
import type { AppContext, Core } from "./core.js";

export interface Ingress {
  port: number;
  routes: readonly Route[];
}

/** The connections of the ingress alone. */
interface IngressConnections {
  /** Fails fast when Redis is down (no offline queue) and times out at its own deadline (the command timeout). */
  enqueue: RedisClient;
  verifier: TokenVerifier;
  liveness: RedisLiveness;
}

export async function startIngress(
  core: Core,
  extraRoutes: ((context: AppContext) => Route[]) | undefined,
  lifecycle: Lifecycle,
): Promise<Ingress> {
  const { options, logger, metrics, clock } = core;
  const connections = await openConnections(core, lifecycle);
  const enqueuer = shardEnqueuer(core, connections.enqueue);
  const apiRoutes = guardedByLiveness(apiRoutesOf(core, enqueuer, lifecycle), connections.liveness);
  const rate = new EventRateLimiter(connections.enqueue, core.keys, options.quotas);
  const pipeline = new EventPipeline({ enqueuer, shards: options.shards, metrics, rate });
  const events = eventRoutes({ pipeline, eventsPerSecond: options.quotas.eventsPerSecond });
  const otlp = startOtlp(core, connections.enqueue, pipeline, lifecycle);
  const traces = guardedByLiveness(otlp.routes, connections.liveness);
  const routes = [...events, ...traces, ...apiRoutes, openApiRoute(), ...(extraRoutes?.(core) ?? [])];
  const { redis, keys, accounts } = core;
  const archivedDeadLetters = core.archive?.deadLetters;
  const dashboardApi = [...apiRoutes, ...guardedByLiveness(otlp.mappingRoutes, connections.liveness)];
  const dashboard = createDashboard({
    apiRoutes: dashboardApi,
    accounts,
    redis,
    keys,
    shards: options.shards,
    logger,
    metrics,
    signup: options.dashboardSignup,
    publicUrl: options.publicUrl,
    archivedDeadLetters,
    clock,
  });
  lifecycle.onStop(() => dashboard.close());
  const http = await startHttpServer({
    routes,
    mounts: [dashboard],
    authenticate: (header) => connections.verifier.authenticate(header),
    logger,
    metrics,
    port: options.port,
    ...(options.host !== undefined && { host: options.host }),
    clock,
  });
  lifecycle.onStop(() => http.close());
  // Listening is checked once here; enqueue's own connection must be up for the ingress to work.
  core.readiness.push({ name: "ingress enqueue connection", check: () => connections.enqueue.status === "ready" });
  return { port: http.port, routes };
}

async function openConnections(core: Core, lifecycle: Lifecycle): Promise<IngressConnections> {
  const { options, endpoint, logger, redis, keys } = core;
  const enqueue = await openClient(
    endpoint,
    { connectionName: "verdict-enqueue", offlineQueue: false, commandTimeoutMs: options.enqueueTimeoutMs },
    logger,
  );
  lifecycle.onStop(() => enqueue.disconnect());
  core.countScriptCalls(enqueue);
  // Pub/sub needs a connection of its own.
  const subscriber = openShardSubscriber(endpoint, "verdict-token-rotations", logger);
  lifecycle.onStop(() => subscriber.disconnect());
  const verifier = await TokenVerifier.start({ redis, subscriber, keys, secret: options.tokenSecret, logger });
  lifecycle.onStop(() => verifier.stop());
  // Its own connection: a PING queued behind this process's own burst of commands would measure the
  // queue, not Redis, and call a busy but healthy Redis down.
  const livenessRedis = await openClient(endpoint, { connectionName: "verdict-liveness", offlineQueue: false }, logger);
  lifecycle.onStop(() => livenessRedis.disconnect());
  const liveness = new RedisLiveness(livenessRedis);
  lifecycle.onStop(() => liveness.stop());
  return { enqueue, verifier, liveness };
}

function shardEnqueuer(core: Core, connection: RedisClient): ShardEnqueuer {
  const { metrics } = core;
  const enqueueSeconds = childrenByLabel(metrics.enqueueSeconds, [
    "ok",
    "backlog",
    "rejected",
    "unconfirmed",
    "replicas",
  ] as const);
  return new ShardEnqueuer(connection, core.keys, core.options, (outcome, events, seconds) => {
    enqueueSeconds[outcome].observe(seconds);
    metrics.enqueueCallEvents.observe(events);
  });
}

/** OTLP trace ingest: spans mapped to events and submitted through the same pipeline as the event routes. */
function startOtlp(core: Core, enqueue: RedisClient, pipeline: EventPipeline, lifecycle: Lifecycle): OtlpIngress {
  const { redis, keys, options, metrics, logger, clock, archive } = core;
  const otlp = startOtlpIngress({
    redis: enqueue,
    keys,
    options,
    pipeline,
    outcomes: new OutcomeStore(redis, keys, options.shards, archive?.outcomes, options.quotas.openOutcomes),
    records: new RecordStore(redis, keys, options.quotas),
    registry: metrics.registry,
    logger,
    clock,
  });
  lifecycle.onStop(() => otlp.stop());
  return otlp;
}

function apiRoutesOf(core: Core, enqueuer: ShardEnqueuer, lifecycle: Lifecycle): Route[] {
  const { options, redis, keys, clock, archive } = core;
  const insights = new InsightThread({
    endpoint: core.endpoint,
    keyPrefix: options.keyPrefix,
    shards: options.shards,
    archive: archive && { location: archive.location, stallMs: options.archiveStallMs },
    logLevel: options.logLevel,
  });
  lifecycle.onStop(() => insights.close());
  return resourceRoutes({
    redis,
    keys,
    shards: options.shards,
    enqueuer,
    clock,
    webhookAllowPrivateUrls: options.webhookAllowPrivateUrls,
    webhookLimits: {
      retentionMs: options.webhookRetentionMs,
      logMax: options.webhookLogMax,
      backlogMax: options.webhookBacklogMax,
    },
    quotas: options.quotas,
    archive: archive && {
      outcomes: archive.outcomes,
      charges: archive.charges,
      deadLetters: archive.deadLetters,
    },
    deadLetterMaxEventBytes: options.dlqMaxEventBytes,
    insights,
  });
}
