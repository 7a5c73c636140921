// What a shard actor is given, in three groups: the lease it holds (per shard), the tuning it runs with
// (the worker's options, the same for every shard) and the services its worker shares among its actors.
import type { ArchivedFilter } from "../archive-read/archived-filter.js";
import type { ArchivedOutcomes } from "../archive-read/archived-outcomes.js";
import type { OutcomeCaps } from "../outcomes/outcome-caps.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Scripts } from "../redis/scripts.js";
import type { TurnCork } from "../redis/turn-cork.js";
import type { Logger } from "../telemetry/logger.js";
import type { ActorMetrics } from "./actor-metrics.js";
import type { ActorScriptReplies } from "./actor-scripts.js";
import type { OutcomeCreator } from "./batch-fold.js";
import type { CohortModels } from "./cohort-models.js";
import type { HotOutcomes } from "./hot-outcomes.js";
import type { OpenOutcomeQuota } from "./open-outcome-quota.js";
import type { StagingTurns } from "./staging-turns.js";

/** The shard this actor owns and the lease it owns it by. */
export interface ShardLease {
  shard: number;
  /** "<worker>:<token>": every commit checks it (fencing). */
  value: string;
  /** The consumer name entries are read under. */
  workerId: string;
  /** Called once when a claim or a commit finds the lease gone: the worker stops this actor. */
  onLost(shard: number): void;
}

/** How the actor reads and commits: the worker's options, the same for all its shards. */
export interface ActorTuning {
  readBatchSize: number;
  /** What reads grow to under a sustained backlog (ReadSize). */
  readBatchMax: number;
  /** Writes a commit stages before it takes no further entry (options.commitMaxWrites; commit-budget.ts). */
  commitMaxWrites: number;
  /** Shortest time between the starts of two small reads while events keep coming (options.readIntervalMs; see pace). */
  readIntervalMs: number;
  maxProcessingAttempts: number;
  /** What one outcome may store (outcome-caps.ts). */
  outcomeCaps: OutcomeCaps;
  /** A dead letter's event larger than this keeps only a prefix in Redis (options.dlqMaxEventBytes). */
  deadLetterMaxEventBytes: number;
  /** Replicas that must hold each commit before it counts (WAIT); 0 trusts the master. */
  replicaAcks: number;
  replicaAckTimeoutMs: number;
}

/**
 * The PostgreSQL archive, when one is configured: charges are queued for it, verdicts enter the settled
 * index it is moved from, and an event to an outcome missing from Redis is checked against it.
 */
export interface ActorArchive {
  outcomes: ArchivedOutcomes;
  /** Which unknown outcomes it may hold, so that only those are looked up. */
  filter: ArchivedFilter;
}

/** What the worker's actors share. */
export interface ActorServices {
  client: RedisClient;
  /** Shared by the worker's actors: the commits and loads of one turn leave `client` in one write. */
  cork: TurnCork;
  /** Shared by the worker's actors: a large page of work each takes a turn of its own (staging-turns.ts). */
  turns: StagingTurns;
  keys: Keys;
  scripts: Scripts<ActorScriptReplies>;
  hot: HotOutcomes;
  /** The worker's merged cohort models, which scores read. */
  models: CohortModels;
  /** A creator per batch: configuration is read once per batch, as it is when the batch runs. */
  outcomeCreator: () => OutcomeCreator;
  archive: ActorArchive | undefined;
  logger: Logger;
  metrics: ActorMetrics;
  /** The business clock: time points are processed up to it. */
  clock: () => number;
}

export interface ShardActorDeps {
  lease: ShardLease;
  tuning: ActorTuning;
  services: ActorServices;
  /** Dedicated connection for the blocking XREADGROUP, so it never stalls other commands. */
  reader: RedisClient;
  /** The open-outcome quota's share of this shard: guards the batch's creations and counts its changes. */
  openQuota: OpenOutcomeQuota;
}
