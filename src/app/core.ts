// The part every process runs: Redis (refusing one that evicts), the key builder, metrics, the memory
// sampler, the archive when one is configured, and the readiness checks the other parts add to.
import type { Registry } from "prom-client";
import { Accounts } from "../accounts/accounts.js";
import { createArchiveMetrics, type ArchiveMetrics } from "../archive-move/archive-metrics.js";
import type { ArchiveLocation, ArchiveSql } from "../archive-db/archive-db.js";
import { ArchivedCharges } from "../archive-read/archived-charges.js";
import { ArchivedDeadLetters } from "../archive-read/archived-dead-letters.js";
import { ArchivedOutcomes } from "../archive-read/archived-outcomes.js";
import { openMigratedArchive } from "../archive-db/configured-archive.js";
import type { VerdictOptions } from "../config/options.js";
import type { RedisClient, RedisEndpoint } from "../redis/client.js";
import { openClient, resolveRedis } from "../redis/connect.js";
import { assertNoEviction } from "../redis/eviction-guard.js";
import { Keys } from "../redis/keys.js";
import { RedisMemorySampler } from "../redis/memory-sampler.js";
import { observeScriptCalls, type ScriptCallObserver } from "../redis/scripts.js";
import type { Lifecycle } from "../runtime/lifecycle.js";
import { claimShardCount } from "../streams/shard-count-guard.js";
import type { ReadinessCheck } from "../telemetry/health-server.js";
import type { Logger } from "../telemetry/logger.js";
import { createMetrics, type Metrics } from "../telemetry/metrics.js";

/** How often each process samples its Redis masters' memory: a few times per Prometheus scrape interval at most. */
const REDIS_MEMORY_SAMPLE_MS = 10_000;

/** The PostgreSQL archive as the parts use it: its reads for the API, its pool and retention for the movers. */
export interface AppArchive {
  sql: ArchiveSql;
  /** Where `sql` connects, for the insight thread's own connection. */
  location: ArchiveLocation;
  /** How long a settled outcome stays in Redis after its verdict. */
  retentionMs: number;
  metrics: ArchiveMetrics;
  outcomes: ArchivedOutcomes;
  charges: ArchivedCharges;
  deadLetters: ArchivedDeadLetters;
}

/** What the other parts (and extra routes) get from the core. */
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

export interface Core extends AppContext {
  /** The business clock (VerdictExtras.clock). */
  clock: () => number;
  /** Where Redis is, for parts that open connections of their own. */
  endpoint: RedisEndpoint;
  /** Counts the script calls of a connection by script name (verdict_redis_script_calls_total). */
  countScriptCalls(client: RedisClient): void;
  /** undefined without one: a production Redis then keeps every outcome and charge. */
  archive: AppArchive | undefined;
  registry: Registry;
}

export async function startCore(
  options: VerdictOptions,
  logger: Logger,
  clock: () => number,
  lifecycle: Lifecycle,
): Promise<Core> {
  const resolved = await resolveRedis(options.redis, logger);
  lifecycle.onStop(() => resolved.release());
  const redis = await openClient(resolved.endpoint, { connectionName: "verdict" }, logger);
  lifecycle.onStop(() => redis.disconnect());
  await assertNoEviction(redis);
  const keys = new Keys(options.keyPrefix);
  await claimShardCount(redis, keys, options.shards);
  const metrics = createMetrics();
  const observer = scriptCallCounter(metrics);
  const countScriptCalls = (client: RedisClient): void => observeScriptCalls(client, observer);
  countScriptCalls(redis);
  sampleMemory(redis, metrics, lifecycle);
  const readiness: ReadinessCheck[] = [{ name: "redis reachable", check: async () => (await redis.ping()) === "PONG" }];
  const archive = await openAppArchive(options, logger, metrics.registry, lifecycle);
  const accounts = new Accounts(redis, keys, options.tokenSecret, options.replicaAcks);
  return {
    options,
    redis,
    keys,
    logger,
    metrics,
    accounts,
    readiness,
    clock,
    endpoint: resolved.endpoint,
    countScriptCalls,
    archive,
    registry: metrics.registry,
  };
}

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

function sampleMemory(redis: RedisClient, metrics: Metrics, lifecycle: Lifecycle): void {
  const sampler = new RedisMemorySampler(
    redis,
    (samples) => {
      for (const { node, usedBytes, maxBytes } of samples) {
        metrics.redisUsedMemory.set({ node }, usedBytes);
        metrics.redisMaxMemory.set({ node }, maxBytes);
      }
    },
    REDIS_MEMORY_SAMPLE_MS,
  );
  sampler.start();
  lifecycle.onStop(() => sampler.stop());
}

/**
 * The archive, migrated (configured-archive.ts says which). Without one a production Redis keeps every
 * outcome and charge forever: said once at start, so nobody learns it from a full Redis.
 */
async function openAppArchive(
  options: VerdictOptions,
  logger: Logger,
  registry: Registry,
  lifecycle: Lifecycle,
): Promise<AppArchive | undefined> {
  const archive = await openMigratedArchive(options, logger);
  if (!archive) {
    logger.warn("VERDICT_ARCHIVE_URL is not set: settled outcomes and charges stay in Redis forever (docs/archive.md)");
    return undefined;
  }
  lifecycle.onStop(() => archive.close());
  const { sql, location } = archive;
  return {
    sql,
    location,
    retentionMs: options.hotRetentionMs,
    metrics: createArchiveMetrics(registry),
    outcomes: new ArchivedOutcomes(sql),
    charges: new ArchivedCharges(sql),
    deadLetters: new ArchivedDeadLetters(sql),
  };
}
