// The only place that reads process.env: turns the environment into validated VerdictOptions.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { QUOTA_SETTINGS, type QuotaOptions } from "./quotas.js";
import {
  ConfigError,
  DEFAULT_OPTIONS,
  validateOptions,
  type RedisTarget,
  type Role,
  type VerdictOptions,
} from "./options.js";

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new ConfigError(`${name} must be an integer (got ${JSON.stringify(raw)})`);
  return value;
}

function optionalInt(env: Env, name: string): number | undefined {
  const raw = env[name];
  return raw === undefined || raw === "" ? undefined : int(env, name, 0);
}

function redisTarget(env: Env, dataDir: string): RedisTarget {
  const clusterNodes = env.REDIS_CLUSTER_NODES;
  if (clusterNodes) {
    const nodes = clusterNodes.split(",").map((hostPort) => {
      const [host, port] = hostPort.trim().split(":");
      if (!host || !port || !Number.isInteger(Number(port))) {
        throw new ConfigError(
          `REDIS_CLUSTER_NODES must be host:port[,host:port...] (got ${JSON.stringify(clusterNodes)})`,
        );
      }
      return { host, port: Number(port) };
    });
    return { kind: "cluster", nodes };
  }
  if (env.REDIS_URL) return { kind: "standalone", url: env.REDIS_URL };
  return { kind: "embedded", dataDir };
}

/**
 * The token secret: from VERDICT_TOKEN_SECRET, or, for the embedded laptop setup only, one generated
 * once and kept beside the embedded Redis data so tokens survive restarts.
 */
function tokenSecret(env: Env, redis: RedisTarget, dataDir: string): string {
  const fromEnv = env.VERDICT_TOKEN_SECRET;
  if (fromEnv) return fromEnv;
  if (redis.kind !== "embedded") {
    throw new ConfigError("VERDICT_TOKEN_SECRET is required when REDIS_URL or REDIS_CLUSTER_NODES is set");
  }
  const file = join(dataDir, "token-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^\s*(\d+)(ms|s|m|h|d)\s*$/;

/** A duration such as `24h`, `90m` or `2s` in ms, or undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text);
  return match?.[1] && match[2] ? Number(match[1]) * (DURATION_UNITS_MS[match[2]] ?? 1) : undefined;
}

/** One duration setting, in ms. */
function parseDurationSetting(name: string, text: string): number {
  const ms = durationMs(text);
  if (ms === undefined)
    throw new ConfigError(`${name} must be a duration such as 24h, 90m or 2s (got ${JSON.stringify(text)})`);
  return ms;
}

/** A comma-separated list of durations such as `5s,5m,30m,2h` (VERDICT_WEBHOOK_RETRY_SCHEDULE), in ms. */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim() === "") return [];
  return text.split(",").map((part) => {
    const ms = durationMs(part);
    if (ms === undefined)
      throw new ConfigError(
        `VERDICT_WEBHOOK_RETRY_SCHEDULE must be durations such as 5s,5m,30m,2h (got ${JSON.stringify(text)})`,
      );
    return ms;
  });
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw !== "true" && raw !== "false")
    throw new ConfigError(`${name} must be true or false (got ${JSON.stringify(raw)})`);
  return raw === "true";
}

/** Every VERDICT_QUOTA_* setting, each falling back to its default. */
function quotas(env: Env): QuotaOptions {
  const setting = (name: keyof QuotaOptions): number => int(env, QUOTA_SETTINGS[name], DEFAULT_OPTIONS.quotas[name]);
  return {
    tasks: setting("tasks"),
    agents: setting("agents"),
    customers: setting("customers"),
    rateCards: setting("rateCards"),
    webhookEndpoints: setting("webhookEndpoints"),
    openOutcomes: setting("openOutcomes"),
    eventsPerSecond: setting("eventsPerSecond"),
    eventBurst: setting("eventBurst"),
    insightReads: setting("insightReads"),
  };
}

export function optionsFromEnv(env: Env, overrides: Partial<VerdictOptions> = {}): VerdictOptions {
  const dataDir = resolve(env.VERDICT_DATA_DIR ?? ".verdict");
  const redis = redisTarget(env, dataDir);
  const role = (env.VERDICT_ROLE ?? DEFAULT_OPTIONS.role) as Role;
  if (!["all", "ingress", "worker"].includes(role))
    throw new ConfigError(`VERDICT_ROLE must be all, ingress or worker`);
  return validateOptions({
    role,
    port: int(env, "VERDICT_PORT", DEFAULT_OPTIONS.port),
    metricsPort: int(env, "VERDICT_METRICS_PORT", DEFAULT_OPTIONS.metricsPort),
    host: env.VERDICT_HOST || DEFAULT_OPTIONS.host,
    metricsHost: env.VERDICT_METRICS_HOST || DEFAULT_OPTIONS.metricsHost,
    redis,
    keyPrefix: env.VERDICT_KEY_PREFIX ?? DEFAULT_OPTIONS.keyPrefix,
    tokenSecret: tokenSecret(env, redis, dataDir),
    shards: int(env, "VERDICT_SHARDS", DEFAULT_OPTIONS.shards),
    maxShardBacklog: int(env, "VERDICT_MAX_SHARD_BACKLOG", DEFAULT_OPTIONS.maxShardBacklog),
    enqueueTimeoutMs: int(env, "VERDICT_ENQUEUE_TIMEOUT_MS", DEFAULT_OPTIONS.enqueueTimeoutMs),
    replicaAcks: int(env, "VERDICT_REPLICA_ACKS", DEFAULT_OPTIONS.replicaAcks),
    leaseTtlMs: int(env, "VERDICT_LEASE_TTL_MS", DEFAULT_OPTIONS.leaseTtlMs),
    maxHotOutcomes: int(env, "VERDICT_MAX_HOT_OUTCOMES", DEFAULT_OPTIONS.maxHotOutcomes),
    readBatchSize: int(env, "VERDICT_READ_BATCH_SIZE", DEFAULT_OPTIONS.readBatchSize),
    readBatchMax: int(env, "VERDICT_READ_BATCH_MAX", DEFAULT_OPTIONS.readBatchMax),
    commitMaxWrites: int(env, "VERDICT_COMMIT_MAX_WRITES", DEFAULT_OPTIONS.commitMaxWrites),
    readIntervalMs: int(env, "VERDICT_READ_INTERVAL_MS", DEFAULT_OPTIONS.readIntervalMs),
    maxProcessingAttempts: int(env, "VERDICT_MAX_PROCESSING_ATTEMPTS", DEFAULT_OPTIONS.maxProcessingAttempts),
    outcomeCaps: {
      maxActions: int(env, "VERDICT_OUTCOME_MAX_ACTIONS", DEFAULT_OPTIONS.outcomeCaps.maxActions),
      maxValueBytes: int(env, "VERDICT_OUTCOME_MAX_VALUE_BYTES", DEFAULT_OPTIONS.outcomeCaps.maxValueBytes),
      maxEventBytes: int(env, "VERDICT_OUTCOME_MAX_EVENT_BYTES", DEFAULT_OPTIONS.outcomeCaps.maxEventBytes),
      maxSnapshotBytes: int(env, "VERDICT_OUTCOME_MAX_SNAPSHOT_BYTES", DEFAULT_OPTIONS.outcomeCaps.maxSnapshotBytes),
    },
    scoreRefreshMs: int(env, "VERDICT_SCORE_REFRESH_MS", DEFAULT_OPTIONS.scoreRefreshMs),
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    logLevel: env.VERDICT_LOG_LEVEL ?? DEFAULT_OPTIONS.logLevel,
    ingressProcesses: optionalInt(env, "VERDICT_INGRESS_PROCESSES"),
    workerProcesses: optionalInt(env, "VERDICT_WORKER_PROCESSES"),
    workerNice: int(env, "VERDICT_WORKER_NICE", DEFAULT_OPTIONS.workerNice),
    dashboardSignup: (env.VERDICT_DASHBOARD_SIGNUP ||
      DEFAULT_OPTIONS.dashboardSignup) as VerdictOptions["dashboardSignup"],
    publicUrl: env.VERDICT_PUBLIC_URL || undefined,
    archiveUrl: env.VERDICT_ARCHIVE_URL || undefined,
    hotRetentionMs: env.VERDICT_HOT_RETENTION
      ? parseDurationSetting("VERDICT_HOT_RETENTION", env.VERDICT_HOT_RETENTION)
      : DEFAULT_OPTIONS.hotRetentionMs,
    archiveStallMs: env.VERDICT_ARCHIVE_STALL
      ? parseDurationSetting("VERDICT_ARCHIVE_STALL", env.VERDICT_ARCHIVE_STALL)
      : DEFAULT_OPTIONS.archiveStallMs,
    dlqRetentionMs: env.VERDICT_DLQ_RETENTION
      ? parseDurationSetting("VERDICT_DLQ_RETENTION", env.VERDICT_DLQ_RETENTION)
      : DEFAULT_OPTIONS.dlqRetentionMs,
    dlqMaxPerAccount: int(env, "VERDICT_DLQ_MAX_PER_ACCOUNT", DEFAULT_OPTIONS.dlqMaxPerAccount),
    otlpHoldMs: env.VERDICT_OTLP_HOLD
      ? parseDurationSetting("VERDICT_OTLP_HOLD", env.VERDICT_OTLP_HOLD)
      : DEFAULT_OPTIONS.otlpHoldMs,
    otlpMaxHeldSpans: int(env, "VERDICT_OTLP_MAX_HELD_SPANS", DEFAULT_OPTIONS.otlpMaxHeldSpans),
    dlqMaxEventBytes: int(env, "VERDICT_DLQ_MAX_EVENT_BYTES", DEFAULT_OPTIONS.dlqMaxEventBytes),
    webhookRetryScheduleMs:
      env.VERDICT_WEBHOOK_RETRY_SCHEDULE === undefined
        ? DEFAULT_OPTIONS.webhookRetryScheduleMs
        : parseRetrySchedule(env.VERDICT_WEBHOOK_RETRY_SCHEDULE),
    webhookAllowPrivateUrls: bool(env, "VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS", DEFAULT_OPTIONS.webhookAllowPrivateUrls),
    webhookDisableAfterMs: env.VERDICT_WEBHOOK_DISABLE_AFTER
      ? parseDurationSetting("VERDICT_WEBHOOK_DISABLE_AFTER", env.VERDICT_WEBHOOK_DISABLE_AFTER)
      : DEFAULT_OPTIONS.webhookDisableAfterMs,
    quotas: quotas(env),
    webhookRetentionMs: env.VERDICT_WEBHOOK_RETENTION
      ? parseDurationSetting("VERDICT_WEBHOOK_RETENTION", env.VERDICT_WEBHOOK_RETENTION)
      : DEFAULT_OPTIONS.webhookRetentionMs,
    webhookLogMax: int(env, "VERDICT_WEBHOOK_LOG_MAX", DEFAULT_OPTIONS.webhookLogMax),
    webhookBacklogMax: int(env, "VERDICT_WEBHOOK_BACKLOG_MAX", DEFAULT_OPTIONS.webhookBacklogMax),
    ...overrides,
  });
}
