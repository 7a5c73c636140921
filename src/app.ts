// Wires one Verdict process: Redis, then the parts its role runs (ingress, worker), then the operations port.
import type { Registry } from "prom-client";
import { Accounts } from "./accounts/accounts.js";
import { Worker, type WorkerArchive } from "./actors/worker.js";
import { migrate } from "./archive/archive-db.js";
import { createArchiveMetrics } from "./archive/archive-metrics.js";
import { ArchivedCharges } from "./archive/archived-charges.js";
import { ArchivedDeadLetters } from "./archive/archived-dead-letters.js";
import { DeadLetterArchiver } from "./archive/dead-letter-archiver.js";
import { createDeadLetterArchiveMetrics } from "./archive/dead-letter-metrics.js";
import { ArchivedOutcomes } from "./archive/archived-outcomes.js";
import { openConfiguredArchive } from "./archive/configured-archive.js";
import { ChargeArchiver } from "./archive/charge-archiver.js";
import { openApiRoute } from "./api/openapi.js";
import { resourceRoutes } from "./api/routes/index.js";
import { guardedByLiveness } from "./api/unavailable.js";
import { TokenVerifier } from "./auth/token-verifier.js";
import { createDashboard } from "./dashboard/dashboard.js";
import type { VerdictOptions } from "./config/options.js";
import { startHttpServer } from "./ingress/http-server.js";
import type { Route } from "./ingress/router.js";
import { EventRateLimiter } from "./ingress/event-rate.js";
import { EventPipeline } from "./ingress/event-pipeline.js";
import { eventRoutes } from "./ingress/routes/events.js";
import { startOtlpIngress } from "./otlp/otlp-ingress.js";
import type { RedisClient } from "./redis/client.js";
import { SettlementMonitor } from "./monitor/settlement-monitor.js";
import { createAgentOutcome, prefetchAgentRecords } from "./outcomes/agent-outcome.js";
import { BatchRecordReader } from "./records/batch-record-reader.js";
import { RecordStore } from "./records/record-store.js";
import { OutcomeStore } from "./stores/outcome-store.js";
import { assertNoEviction } from "./redis/eviction-guard.js";
import { RedisLiveness } from "./redis/liveness.js";
import { RedisMemorySampler } from "./redis/memory-sampler.js";
import { observeScriptCalls, type ScriptCallObserver } from "./redis/scripts.js";
import { openClient, openShardSubscriber, resolveRedis } from "./redis/connect.js";
import { ShardEnqueuer } from "./streams/enqueue.js";
import { Keys } from "./redis/keys.js";
import { claimShardCount } from "./streams/shard-count-guard.js";
import { failingChecks, startHealthServer, type ReadinessCheck } from "./telemetry/health-server.js";
import { createLogger, type Logger } from "./telemetry/logger.js";
import { childrenByLabel, createMetrics, type Metrics } from "./telemetry/metrics.js";
import { WebhookDispatcher } from "./webhooks/dispatcher.js";
import { createWebhookMetrics } from "./webhooks/webhook-metrics.js";

/** What extra parts (routes, the worker) get from the running app. */
export interface AppContext {
  options: VerdictOptions;
  /** The shared command connection (offline queue on). */
  redis: RedisClient;
  keys: Keys;
  logger: Logger;
  metrics: Metrics;
  accounts: Accounts;
  /** Conditions /readyz requires; push one for each part that must be up before the process is ready. */
  readiness: ReadinessCheck[];
}

export interface VerdictExtras {
  /** Defaults to a pino logger at options.logLevel. */
  logger?: Logger;
  /** More HTTP routes, built once the app's Redis and keys exist (served by roles all and ingress). */
  extraRoutes?: (context: AppContext) => Route[];
  /**
   * The business clock: receive times stamped at the edge, read-time evaluation and the monitor's time
   * points. Leases and timeouts always use real time. Tests freeze it to check exact IDLE brackets.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Serve /metrics, /healthz and /readyz on options.metricsPort. A supervised child does not: its
   * supervisor serves them for the machine and asks the child over IPC.
   * @default true
   */
  operationsPort?: boolean;
}

export interface VerdictApp {
  /** HTTP API port; 0 when this role serves no API (worker). */
  port: number;
  /** The operations port; 0 when the app serves none (a supervised child). */
  metricsPort: number;
  redis: RedisClient;
  registry: Registry;
  /** Names of the readiness checks that fail now; empty when ready. */
  failingChecks(): Promise<string[]>;
  keys: Keys;
  /** The HTTP routes this app serves (empty for a worker). */
  routes: readonly Pick<Route, "method" | "path">[];
  /** Stops everything this app started, newest first. */
  stop(): Promise<void>;
}

type Stopper = () => unknown;

/** How often each process samples its Redis masters' memory: a few times per Prometheus scrape interval at most. */
const REDIS_MEMORY_SAMPLE_MS = 10_000;

/** Counts script calls by name; each name's child is resolved once (labels() hashes on every call). */
function scriptCallCounter(metrics: Metrics): ScriptCallObserver {
  const children = new Map<string, { inc(): void }>();
  return (script) => {
    let child = children.get(script);
    if (child === undefined) {
      child = metrics.redisScriptCalls.labels(script);
      children.set(script, child);
    }
    child.inc();
  };
}

/**
 * The archive, migrated (configured-archive.ts says which). Without one a production Redis keeps every
 * outcome and charge forever: said once at start, so nobody learns it from a full Redis.
 */
async function openArchiveFor(options: VerdictOptions, logger: Logger, registry: Registry, stoppers: Stopper[]): Promise<WorkerArchive | undefined> {
  const archive = await openConfiguredArchive(options);
  if (!archive) {
    logger.warn("VERDICT_ARCHIVE_URL is not set: settled outcomes and charges stay in Redis forever (docs/archive.md)");
    return undefined;
  }
  stoppers.push(() => archive.close());
  logger.info({ archive: archive.where }, `archive: ${archive.where}`);
  const applied = await migrate(archive.sql);
  if (applied.length > 0) logger.info({ applied }, "archive migrations applied");
  return { sql: archive.sql, retentionMs: options.hotRetentionMs, metrics: createArchiveMetrics(registry) };
}

export async function startVerdict(options: VerdictOptions, extras: VerdictExtras = {}): Promise<VerdictApp> {
  const logger = extras.logger ?? createLogger(options.logLevel, { role: options.role });
  const clock = extras.clock ?? Date.now;
  const stoppers: Stopper[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stoppers.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.warn({ err: error }, "error while stopping");
      }
    }
  };

  try {
    const resolved = await resolveRedis(options.redis, logger);
    stoppers.push(() => resolved.release());
    const redis = await openClient(resolved.endpoint, { connectionName: "verdict" }, logger);
    stoppers.push(() => redis.disconnect());
    await assertNoEviction(redis);

    const keys = new Keys(options.keyPrefix);
    await claimShardCount(redis, keys, options.shards);
    const metrics = createMetrics();
    const countScriptCall = scriptCallCounter(metrics);
    observeScriptCalls(redis, countScriptCall);
    const memorySampler = new RedisMemorySampler(
      redis,
      (samples) => {
        for (const { node, usedBytes, maxBytes } of samples) {
          metrics.redisUsedMemory.set({ node }, usedBytes);
          metrics.redisMaxMemory.set({ node }, maxBytes);
        }
      },
      REDIS_MEMORY_SAMPLE_MS,
    );
    memorySampler.start();
    stoppers.push(() => memorySampler.stop());
    const readiness: ReadinessCheck[] = [
      { name: "redis reachable", check: async () => (await redis.ping()) === "PONG" },
    ];
    const archive = await openArchiveFor(options, logger, metrics.registry, stoppers);
    const context: AppContext = { options, redis, keys, logger, metrics, accounts: new Accounts(redis, keys, options.tokenSecret, options.replicaAcks), readiness };

    let port = 0;
    let routes: Route[] = [];
    if (options.role === "all" || options.role === "ingress") {
      // Own connections: enqueue fails fast when Redis is down (no offline queue) and times out at its own
      // deadline (the command timeout); pub/sub needs its own.
      const enqueueRedis = await openClient(
        resolved.endpoint,
        { connectionName: "verdict-enqueue", offlineQueue: false, commandTimeoutMs: options.enqueueTimeoutMs },
        logger,
      );
      stoppers.push(() => enqueueRedis.disconnect());
      observeScriptCalls(enqueueRedis, countScriptCall);
      const subscriber = openShardSubscriber(resolved.endpoint, "verdict-token-rotations", logger);
      stoppers.push(() => subscriber.disconnect());
      const verifier = await TokenVerifier.start({ redis, subscriber, keys, secret: options.tokenSecret, logger });
      stoppers.push(() => verifier.stop());

      const enqueueSeconds = childrenByLabel(metrics.enqueueSeconds, ["ok", "backlog", "rejected", "unconfirmed", "replicas"] as const);
      const enqueuer = new ShardEnqueuer(enqueueRedis, keys, options, (outcome, events, seconds) => {
        enqueueSeconds[outcome].observe(seconds);
        metrics.enqueueCallEvents.observe(events);
      });
      // Its own connection: a PING queued behind this process's own burst of commands would measure the
      // queue, not Redis, and call a busy but healthy Redis down.
      const livenessRedis = await openClient(resolved.endpoint, { connectionName: "verdict-liveness", offlineQueue: false }, logger);
      stoppers.push(() => livenessRedis.disconnect());
      const liveness = new RedisLiveness(livenessRedis);
      stoppers.push(() => liveness.stop());
      const apiRoutes = guardedByLiveness(resourceRoutes({ redis, keys, shards: options.shards, enqueuer, clock, webhookAllowPrivateUrls: options.webhookAllowPrivateUrls, webhookLimits: { retentionMs: options.webhookRetentionMs, logMax: options.webhookLogMax, backlogMax: options.webhookBacklogMax }, quotas: options.quotas, archive: archive && { outcomes: new ArchivedOutcomes(archive.sql), charges: new ArchivedCharges(archive.sql), deadLetters: new ArchivedDeadLetters(archive.sql) }, deadLetterMaxEventBytes: options.dlqMaxEventBytes }), liveness);
      const rate = new EventRateLimiter(enqueueRedis, keys, options.quotas);
      const pipeline = new EventPipeline({ enqueuer, shards: options.shards, metrics, rate });
      const otlp = startOtlpIngress({
        redis: enqueueRedis,
        keys,
        options,
        pipeline,
        outcomes: new OutcomeStore(redis, keys, options.shards, archive && new ArchivedOutcomes(archive.sql), options.quotas.openOutcomes),
        records: new RecordStore(redis, keys, options.quotas),
        registry: metrics.registry,
        logger,
        clock,
      });
      stoppers.push(() => otlp.stop());
      routes = [...eventRoutes({ pipeline, eventsPerSecond: options.quotas.eventsPerSecond }), ...guardedByLiveness(otlp.routes, liveness), ...apiRoutes, openApiRoute(), ...(extras.extraRoutes?.(context) ?? [])];
      const dashboard = createDashboard({
        apiRoutes,
        accounts: context.accounts,
        redis,
        keys,
        shards: options.shards,
        logger,
        metrics,
        signup: options.dashboardSignup,
        publicUrl: options.publicUrl,
        clock,
      });
      stoppers.push(() => dashboard.close());
      const http = await startHttpServer({
        routes,
        mounts: [dashboard],
        authenticate: (header) => verifier.authenticate(header),
        logger,
        metrics,
        port: options.port,
        ...(options.host !== undefined && { host: options.host }),
        clock,
      });
      stoppers.push(() => http.close());
      port = http.port;
      // Listening is checked once here; enqueue's own connection must be up for the ingress to work.
      readiness.push({ name: "ingress enqueue connection", check: () => enqueueRedis.status === "ready" });
    }

    if (options.role === "all" || options.role === "worker") {
      const records = new RecordStore(redis, keys);
      const worker = new Worker({
        client: redis,
        keys,
        options,
        logger,
        registry: metrics.registry,
        outcomeCreator: () => {
          const reader = new BatchRecordReader(records);
          return { prefetch: (event) => prefetchAgentRecords(reader, event), create: (event) => createAgentOutcome(reader, event) };
        },
        clock,
        archive,
      });
      await worker.start();
      stoppers.push(() => worker.stop());
      if (archive) {
        const archiver = new ChargeArchiver({ redis, keys, sql: archive.sql, shards: () => worker.ownedShards, retentionMs: archive.retentionMs, logger, metrics: archive.metrics });
        archiver.start();
        // Stopped before the worker (stoppers run last first): its last pass still has the worker's shards.
        stoppers.push(() => archiver.stop());
      }
      // Without an archive too: the same limits then drop dead letters, so Redis stays bounded.
      const deadLetterArchiver = new DeadLetterArchiver({
        redis,
        keys,
        sql: archive?.sql,
        shardCount: options.shards,
        shards: () => worker.ownedShards,
        retentionMs: options.dlqRetentionMs,
        maxPerAccount: options.dlqMaxPerAccount,
        logger,
        metrics: createDeadLetterArchiveMetrics(metrics.registry),
      });
      deadLetterArchiver.start();
      stoppers.push(() => deadLetterArchiver.stop());
      // The shard owner dispatches the shard's webhooks: stopped before the worker gives its shards up.
      const dispatcher = new WebhookDispatcher({
        client: redis,
        keys,
        shards: options.shards,
        records,
        owns: (shard) => worker.owns(shard),
        retryScheduleMs: options.webhookRetryScheduleMs,
        allowPrivateUrls: options.webhookAllowPrivateUrls,
        disableAfterMs: options.webhookDisableAfterMs,
        limits: { retentionMs: options.webhookRetentionMs, logMax: options.webhookLogMax, backlogMax: options.webhookBacklogMax },
        logger,
        metrics: createWebhookMetrics(metrics.registry),
      });
      dispatcher.start();
      stoppers.push(() => dispatcher.stop());
      const monitor = new SettlementMonitor(worker, metrics.registry, logger);
      monitor.start();
      stoppers.push(() => monitor.stop());
      readiness.push({ name: "joined shard membership", check: () => worker.joined });
    }

    const failing = (): Promise<string[]> => failingChecks(readiness);
    let metricsPort = 0;
    if (extras.operationsPort ?? true) {
      const health = await startHealthServer(options.metricsPort, metrics.registry, failing, options.metricsHost);
      stoppers.push(() => health.close());
      metricsPort = health.port;
    }
    logger.info({ port, metricsPort }, "verdict started");

    let stopping: Promise<void> | undefined;
    return {
      port,
      metricsPort,
      redis,
      registry: metrics.registry,
      failingChecks: failing,
      keys,
      routes: routes.map(({ method, path }) => ({ method, path })),
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
