// The service's one typed options object: every knob, its documented default, and validation at start.

import { DEFAULT_OUTCOME_CAPS, type OutcomeCaps } from "../outcomes/outcome-caps.js";
import { DEFAULT_QUOTAS, quotaProblems, type QuotaOptions } from "./quotas.js";
import { secretProblem } from "./secret-strength.js";

export type Role = "all" | "ingress" | "worker";

/** How to reach Redis: an owned local server, one URL, or a cluster. */
export type RedisTarget =
  | { kind: "embedded"; dataDir: string }
  | { kind: "standalone"; url: string }
  | { kind: "cluster"; nodes: readonly { host: string; port: number }[] };

export interface VerdictOptions {
  /** Which parts this process runs. @default "all" */
  role: Role;
  /** HTTP port of the API and dashboard; 0 picks a free one. @default 8080 */
  port: number;
  /** Port of /metrics, /healthz and /readyz; 0 picks a free one. @default 9464 */
  metricsPort: number;
  /** Address the API port binds to (e.g. 127.0.0.1 behind a local proxy). @default every interface */
  host: string | undefined;
  /** Address the metrics port binds to. @default every interface */
  metricsHost: string | undefined;
  /** Where Redis is. @default embedded redis-server under ./.verdict/ */
  redis: RedisTarget;
  /** Prefix of every Redis key; must not contain `{` or `}` (hash tags are the key builder's). @default "v:" */
  keyPrefix: string;
  /** Secret that signs API tokens (HMAC-SHA256). Required outside development. */
  tokenSecret: string;
  /**
   * Number of shards; fixed for the life of a deployment. It caps the worker processes that share the work
   * (one owner per shard) and sets how far the ingress's group commit reaches: the requests of one
   * event-loop turn share a script call only when they land on the same shard, so fewer shards means fewer
   * calls per request (docs/performance.md: 16 shards gave 17% more single-event requests/s than 64).
   * @default 16
   */
  shards: number;
  /** A shard stream longer than this rejects new events (backpressure). @default 1_000_000 */
  maxShardBacklog: number;
  /** How long an enqueue may take before the event is answered unconfirmed. @default 2000 */
  enqueueTimeoutMs: number;
  /**
   * Replicas that must hold a write before it counts (Redis WAIT): an enqueue answers 202 only then (else
   * unconfirmed), and a worker's commit and lease, and a token rotation, wait for it too. 0 trusts the
   * master alone; 1 survives a master's failover. @default 0
   */
  replicaAcks: number;
  /** Shard lease lifetime; a dead worker's shards move after this. @default 5000 */
  leaseTtlMs: number;
  /** Outcomes kept in memory per worker before the least recently used are dropped. @default 200_000 */
  maxHotOutcomes: number;
  /**
   * Events read from a shard stream per XREADGROUP while the shard keeps up (a read takes what is there, so
   * only a backlog fills one). Small reads keep 202-to-visible short under steady load; see readBatchMax for
   * a backlog (docs/performance.md, Read batch size).
   * @default 1000
   */
  readBatchSize: number;
  /**
   * What reads grow to under a sustained backlog: a read that comes back full with its oldest entry at least
   * a second old (ReadSize) makes the next reads this large, until one does not fill. Larger reads fold more
   * of an outcome's events into one snapshot write: 4,000 drained a backlog 40-50% faster here. Set it to
   * readBatchSize (or below) to keep reads fixed.
   * @default 4000
   */
  readBatchMax: number;
  /**
   * Writes (operations and sorted-set members) one shard commit stages before it takes no further stream
   * entry: every call to Redis waits behind a running commit, so this bounds how long one account's batch
   * of dead letters holds the others' enqueues. Larger commits drain a backlog with fewer snapshot writes.
   * @default 2000
   */
  commitMaxWrites: number;
  /**
   * While a shard's events arrive one or a few at a time faster than it reads them, its reads start at most
   * this often: the events that arrive meanwhile share a read and a commit, most of whose cost is per
   * commit. A read that waited longer for its first entry (a quiet shard), and a read of 100 events or more,
   * are followed by the next at once. 0 reads again at once.
   * @default 15
   */
  readIntervalMs: number;
  /** Attempts at an event that throws unexpectedly before it is dead-lettered. @default 5 */
  maxProcessingAttempts: number;
  /**
   * What one outcome may store: distinct actions, bytes of a `last_value`, of an event's properties in its
   * log, and of its snapshot; an event that would pass one is dead-lettered OUTCOME_TOO_LARGE.
   * @default DEFAULT_OUTCOME_CAPS (256 actions, 16 KiB, 256 KiB, 64 KiB)
   */
  outcomeCaps: OutcomeCaps;
  /**
   * How often a worker re-reads the merged model of each cohort it scores (docs/api.md, Scores): the lag before
   * what one shard learns reaches the scores of the others. @default 2000
   */
  scoreRefreshMs: number;
  /** OTLP/HTTP endpoint for traces; tracing is off when absent. */
  otlpEndpoint: string | undefined;
  /** pino log level. @default "info" */
  logLevel: string;
  /** Ingress processes `verdict serve` runs with role all. @default one per core less one, at least one */
  ingressProcesses: number | undefined;
  /** Worker processes `verdict serve` runs with role all. @default the cores the ingress leaves, at least one */
  workerProcesses: number | undefined;
  /** The nice value of the worker children of `verdict serve` with role all (0: as the ingress). @default 10 */
  workerNice: number;
  /**
   * Whether anyone may create an account at /dashboard/sign-up; "closed" leaves user creation to
   * `verdict user add`. @default "open"
   */
  dashboardSignup: "open" | "closed";
  /**
   * The URL people reach the service at (`https://verdict.example.com`): the dashboard accepts form posts
   * only from this origin and marks its cookie Secure when it is https. Unset: the request's own Host.
   */
  publicUrl: string | undefined;
  /**
   * PostgreSQL URL of the archive (postgres://user:password@host:5432/db): the system of record that charges
   * are copied to within a second of their creation and settled outcomes move to after `hotRetentionMs`
   * (docs/archive.md). Unset: everything stays in Redis.
   */
  archiveUrl: string | undefined;
  /** How long a settled outcome stays in Redis after its verdict before it moves to the archive. @default 24 h */
  hotRetentionMs: number;
  /**
   * A connection to the archive's PostgreSQL that hears nothing for this long while it waits is given up, so
   * a silent peer (a partition that drops packets, a host that died) fails a statement within this bound
   * instead of after TCP's own 15 minutes; a statement that legitimately runs longer is cut too.
   * @default 30 s
   */
  archiveStallMs: number;
  /**
   * How long a dead letter stays in Redis before it moves to the archive (dropped, without one: counted in
   * verdict_dead_letters_dropped_total). @default 24 h
   */
  dlqRetentionMs: number;
  /**
   * Dead letters an account keeps in Redis, split evenly over the shards (each keeps the newest
   * ceil(n / shards)); older ones move to the archive at once (dropped, without one). @default 10,000
   */
  dlqMaxPerAccount: number;
  /**
   * How long OTLP spans of a trace that has not named its outcome yet wait for a span that does; then they
   * are rejected (counted in verdict_otlp_spans_total, logged). @default 60 s
   */
  otlpHoldMs: number;
  /** Most OTLP spans one account may hold at once waiting for their trace's outcome key. @default 100,000 */
  otlpMaxHeldSpans: number;
  /**
   * A dead letter whose event packs to more than this keeps only this many bytes of its properties' JSON in
   * Redis; the whole event goes to the archive and a replay sends it whole. @default 8 KiB
   */
  dlqMaxEventBytes: number;
  /**
   * Delays between a webhook message's failed attempts and the next (ms, with jitter); a message failing
   * one attempt more than there are delays is `failed`. @default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
   */
  webhookRetryScheduleMs: readonly number[];
  /**
   * Allow webhook URLs whose host resolves to a loopback, private, link-local or multicast address (tests,
   * a private network). @default false
   */
  webhookAllowPrivateUrls: boolean;
  /**
   * A webhook endpoint that fails every attempt for this long (no 2xx since its first failure) is disabled.
   * @default 5 days
   */
  webhookDisableAfterMs: number;
  /** Per-account quotas (src/config/quotas.ts). @default DEFAULT_QUOTAS */
  quotas: QuotaOptions;
  /** Webhook messages and their attempts are kept this long after their last change. @default 7 days */
  webhookRetentionMs: number;
  /**
   * Webhook messages kept per endpoint (each shard its share); delivered and failed ones beyond it leave
   * Redis, pending ones stay until delivered, failed or past the retention. @default 2000
   */
  webhookLogMax: number;
  /**
   * Undelivered webhook messages one endpoint may have queued (each shard its share); at that backlog the
   * endpoint gets no new message until it drains. @default 10000
   */
  webhookBacklogMax: number;
}

/** Standard Webhooks' customary retry schedule. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
]);

/** The "an endpoint failing everything for 5 days is disabled". */
export const DEFAULT_WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/** Standard Webhooks' customary week of message history. */
export const DEFAULT_WEBHOOK_RETENTION_MS = 7 * 24 * 3600 * 1000;

export const DEFAULT_OPTIONS: Readonly<Omit<VerdictOptions, "tokenSecret" | "redis">> = Object.freeze({
  role: "all",
  port: 8080,
  metricsPort: 9464,
  host: undefined,
  metricsHost: undefined,
  keyPrefix: "v:",
  shards: 16,
  maxShardBacklog: 1_000_000,
  enqueueTimeoutMs: 2000,
  replicaAcks: 0,
  leaseTtlMs: 5000,
  maxHotOutcomes: 200_000,
  readBatchSize: 1000,
  readBatchMax: 4000,
  commitMaxWrites: 4000,
  readIntervalMs: 15,
  maxProcessingAttempts: 5,
  outcomeCaps: DEFAULT_OUTCOME_CAPS,
  scoreRefreshMs: 2000,
  otlpEndpoint: undefined,
  logLevel: "info",
  ingressProcesses: undefined,
  workerProcesses: undefined,
  workerNice: 10,
  dashboardSignup: "open",
  publicUrl: undefined,
  archiveUrl: undefined,
  hotRetentionMs: 24 * 3_600_000,
  archiveStallMs: 30_000,
  dlqRetentionMs: 24 * 3_600_000,
  dlqMaxPerAccount: 10_000,
  otlpHoldMs: 60_000,
  otlpMaxHeldSpans: 100_000,
  dlqMaxEventBytes: 8192,
  webhookRetryScheduleMs: DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  webhookAllowPrivateUrls: false,
  webhookDisableAfterMs: DEFAULT_WEBHOOK_DISABLE_AFTER_MS,
  quotas: DEFAULT_QUOTAS,
  webhookRetentionMs: DEFAULT_WEBHOOK_RETENTION_MS,
  webhookLogMax: 2000,
  webhookBacklogMax: 10_000,
});

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Rejects options the service cannot run with, naming the setting to fix. */
export function validateOptions(options: VerdictOptions): VerdictOptions {
  const problems: string[] = [];
  const intIn = (name: string, value: number, min: number, max: number): void => {
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got ${value})`);
    }
  };
  intIn("port", options.port, 0, 65535);
  intIn("metricsPort", options.metricsPort, 0, 65535);
  intIn("shards", options.shards, 1, 16384);
  intIn("maxShardBacklog", options.maxShardBacklog, 1, Number.MAX_SAFE_INTEGER);
  intIn("enqueueTimeoutMs", options.enqueueTimeoutMs, 1, 600_000);
  intIn("replicaAcks", options.replicaAcks, 0, 16);
  intIn("leaseTtlMs", options.leaseTtlMs, 500, 600_000);
  intIn("maxHotOutcomes", options.maxHotOutcomes, 1, 100_000_000);
  intIn("readBatchSize", options.readBatchSize, 1, 100_000);
  intIn("readBatchMax", options.readBatchMax, 1, 100_000);
  intIn("commitMaxWrites", options.commitMaxWrites, 1, 1_000_000);
  intIn("readIntervalMs", options.readIntervalMs, 0, 1000);
  intIn("maxProcessingAttempts", options.maxProcessingAttempts, 1, 1000);
  intIn("outcomeCaps.maxActions", options.outcomeCaps.maxActions, 1, 1_000_000);
  intIn("outcomeCaps.maxValueBytes", options.outcomeCaps.maxValueBytes, 1, 1 << 30);
  intIn("outcomeCaps.maxEventBytes", options.outcomeCaps.maxEventBytes, 1, 1 << 30);
  intIn("outcomeCaps.maxSnapshotBytes", options.outcomeCaps.maxSnapshotBytes, 1024, 1 << 30);
  intIn("scoreRefreshMs", options.scoreRefreshMs, 50, 600_000);
  if (options.ingressProcesses !== undefined) intIn("ingressProcesses", options.ingressProcesses, 1, 1024);
  if (options.workerProcesses !== undefined) intIn("workerProcesses", options.workerProcesses, 1, 1024);
  intIn("workerNice", options.workerNice, 0, 19);
  if (/[{}]/.test(options.keyPrefix)) problems.push("keyPrefix must not contain '{' or '}'");
  const weakSecret = secretProblem(options.tokenSecret);
  if (weakSecret !== undefined) problems.push(weakSecret);
  if (options.redis.kind === "cluster" && options.redis.nodes.length === 0) {
    problems.push("a cluster needs at least one node");
  }
  if (options.dashboardSignup !== "open" && options.dashboardSignup !== "closed")
    problems.push("dashboardSignup must be open or closed");
  if (options.archiveUrl !== undefined && !/^postgres(ql)?:\/\//.test(options.archiveUrl)) {
    problems.push("archiveUrl must be a postgres:// or postgresql:// URL");
  }
  if (!Number.isInteger(options.hotRetentionMs) || options.hotRetentionMs < 0)
    problems.push("hotRetentionMs must be a whole number of ms, 0 or more");
  if (!Number.isInteger(options.archiveStallMs) || options.archiveStallMs < 1)
    problems.push("archiveStallMs must be a whole number of ms, 1 or more");
  if (!Number.isInteger(options.dlqRetentionMs) || options.dlqRetentionMs < 0)
    problems.push("dlqRetentionMs must be a whole number of ms, 0 or more");
  intIn("dlqMaxPerAccount", options.dlqMaxPerAccount, 1, 100_000_000);
  intIn("otlpHoldMs", options.otlpHoldMs, 100, 3_600_000);
  intIn("otlpMaxHeldSpans", options.otlpMaxHeldSpans, 0, 100_000_000);
  intIn("dlqMaxEventBytes", options.dlqMaxEventBytes, 256, 64 * 1024 * 1024);
  if (options.publicUrl !== undefined && !/^https?:\/\/[^/]+\/?$/.test(options.publicUrl)) {
    problems.push(`publicUrl must be an http(s) origin such as https://verdict.example.com (got ${options.publicUrl})`);
  }
  if (
    options.webhookRetryScheduleMs.length > 50 ||
    options.webhookRetryScheduleMs.some((ms) => !Number.isInteger(ms) || ms < 0 || ms > 7 * 24 * 3600 * 1000)
  ) {
    problems.push("webhookRetryScheduleMs must be at most 50 delays, each from 0 to 7 days");
  }
  intIn("webhookDisableAfterMs", options.webhookDisableAfterMs, 1, 365 * 24 * 3600 * 1000);
  problems.push(...quotaProblems(options.quotas));
  intIn("webhookRetentionMs", options.webhookRetentionMs, 1000, 365 * 24 * 3600 * 1000);
  intIn("webhookLogMax", options.webhookLogMax, 1, 10_000_000);
  intIn("webhookBacklogMax", options.webhookBacklogMax, 1, 10_000_000);
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  return options;
}
