// A worker process's share of the shards: joins the membership, takes the leases rendezvous hashing gives
// it, runs one actor per owned shard, gives shards up when others join, and takes over those of the dead.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Registry } from "prom-client";
import { DEFAULT_QUOTAS, openOutcomesPerShard, type QuotaOptions } from "../config/quotas.js";
import { duplicateClient, type RedisClient } from "../redis/client.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import type { ArchiveMetrics } from "../archive-move/archive-metrics.js";
import { ArchivedFilter } from "../archive-read/archived-filter.js";
import type { ArchivedOutcomes } from "../archive-read/archived-outcomes.js";
import { ChargeArchiver } from "../archive-move/charge-archiver.js";
import { OutcomeArchiver } from "../archive-move/outcome-archiver.js";
import { TurnCork } from "../redis/turn-cork.js";
import { StagingTurns } from "./staging-turns.js";
import { Scripts } from "../redis/scripts.js";
import type { Keys } from "../redis/keys.js";
import { Periodic } from "../runtime/periodic.js";
import type { Logger } from "../telemetry/logger.js";
import { createActorMetrics, type ActorMetrics } from "./actor-metrics.js";
import { desiredShards } from "./assignment.js";
import { CohortModels } from "./cohort-models.js";
import type { OutcomeCaps } from "../outcomes/outcome-caps.js";
import { HotOutcomes } from "./hot-outcomes.js";
import { Membership } from "./membership.js";
import type { OutcomeCreator } from "./batch-fold.js";
import { OpenOutcomeQuota } from "./open-outcome-quota.js";
import type { ActorServices, ActorTuning } from "./actor-deps.js";
import { ACTOR_SCRIPTS, LEASE_LOST, type ActorScriptReplies } from "./actor-scripts.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { ShardActor } from "./shard-actor.js";
import { readShardLag } from "./shard-lag.js";

export interface WorkerOptions {
  shards: number;
  leaseTtlMs: number;
  /** Replicas that must hold a lease and every commit before they count (WAIT). */
  replicaAcks: number;
  maxHotOutcomes: number;
  readBatchSize: number;
  readBatchMax: number;
  commitMaxWrites: number;
  readIntervalMs: number;
  maxProcessingAttempts: number;
  outcomeCaps: OutcomeCaps;
  scoreRefreshMs: number;
  /** The account quotas the worker enforces: open outcomes, a share per shard. @default DEFAULT_QUOTAS */
  quotas?: Pick<QuotaOptions, "openOutcomes">;
  dlqMaxEventBytes: number;
}

/** The PostgreSQL archive a worker moves its shards' settled outcomes to, when one is configured. */
export interface WorkerArchive {
  sql: ArchiveSql;
  /** How long a settled outcome stays in Redis after its verdict. */
  retentionMs: number;
  metrics: ArchiveMetrics;
  /** The archive's outcomes, which batches check an event to an outcome missing from Redis against. */
  outcomes: ArchivedOutcomes;
}

export interface WorkerDeps {
  client: RedisClient;
  keys: Keys;
  options: WorkerOptions;
  logger: Logger;
  registry: Registry;
  outcomeCreator: () => OutcomeCreator;
  /** The business clock for time points (settlement, IDLE). @default Date.now */
  clock?: () => number;
  /** @default undefined: nothing leaves Redis */
  archive?: WorkerArchive | undefined;
}

/**
 * How long a lease or commit waits for its replicas: well within the lease, so a replica that does not
 * answer never holds a worker past the time its lease would run out.
 */
export function replicaAckTimeoutMs(leaseTtlMs: number): number {
  return Math.max(50, Math.floor(leaseTtlMs / 4));
}

/** How often a worker measures its shards' lag and dead letters: cheap reads, a few per scrape interval. */
export const SHARD_LAG_SAMPLE_MS = 5000;

export class Worker {
  readonly id = `w-${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  private readonly actors = new Map<number, { actor: ShardActor; leaseValue: string }>();
  private readonly scripts: Scripts<ActorScriptReplies>;
  private readonly leases: LeaseKeeper;
  private readonly membership: Membership;
  private readonly cork: TurnCork;
  private readonly hot: HotOutcomes;
  private readonly models: CohortModels;
  private readonly metrics: ActorMetrics;
  private readonly archivedFilter: ArchivedFilter | undefined;
  /** What every actor of this worker runs with and shares. */
  private readonly tuning: ActorTuning;
  private readonly services: ActorServices;
  /** Move this worker's shards' settled outcomes and charges to the archive; undefined without one. */
  private readonly archivers: { outcomes: OutcomeArchiver; charges: ChargeArchiver } | undefined;
  /** The beat: membership heartbeat, lease renewals, shards given up and taken. */
  private readonly beat: Periodic;
  private readonly lagSampler: Periodic;
  private stopped = false;
  /** True once this worker has joined the membership: what /readyz reports for a worker. */
  joined = false;

  constructor(private readonly deps: WorkerDeps) {
    this.scripts = new Scripts(deps.client, new URL("./lua/", import.meta.url), ACTOR_SCRIPTS);
    const { leaseTtlMs, replicaAcks } = deps.options;
    this.leases = new LeaseKeeper({
      client: deps.client,
      keys: deps.keys,
      scripts: this.scripts,
      workerId: this.id,
      leaseTtlMs,
      replicaAcks,
      replicaAckTimeoutMs: replicaAckTimeoutMs(leaseTtlMs),
      logger: deps.logger,
    });
    // Renew well within the lease lifetime, so a slow beat never lets a lease lapse.
    this.beat = new Periodic(() => this.rebalance(), {
      intervalMs: Math.max(100, Math.floor(leaseTtlMs / 5)),
      onError: (error) => deps.logger.warn({ err: error }, "rebalance failed; retrying on the next beat"),
    });
    this.lagSampler = new Periodic(() => this.sampleLag(), {
      intervalMs: SHARD_LAG_SAMPLE_MS,
      runAtStart: true,
      unref: true,
    });
    this.cork = new TurnCork(deps.client);
    this.membership = new Membership(deps.client, deps.keys, this.id, deps.options.leaseTtlMs);
    this.hot = new HotOutcomes(deps.options.maxHotOutcomes);
    this.models = new CohortModels({
      client: deps.client,
      keys: deps.keys,
      shards: deps.options.shards,
      refreshMs: deps.options.scoreRefreshMs,
      logger: deps.logger,
    });
    this.metrics = createActorMetrics(deps.registry);
    const archive = deps.archive;
    if (archive) {
      this.archivedFilter = new ArchivedFilter({
        redis: deps.client,
        keys: deps.keys,
        sql: archive.sql,
        shards: deps.options.shards,
        logger: deps.logger,
      });
      this.archivers = this.archiversFor(archive);
    }
    const { options, client, keys, logger, outcomeCreator } = deps;
    this.tuning = {
      readBatchSize: options.readBatchSize,
      readBatchMax: options.readBatchMax,
      commitMaxWrites: options.commitMaxWrites,
      readIntervalMs: options.readIntervalMs,
      maxProcessingAttempts: options.maxProcessingAttempts,
      outcomeCaps: options.outcomeCaps,
      deadLetterMaxEventBytes: options.dlqMaxEventBytes,
      replicaAcks: options.replicaAcks,
      replicaAckTimeoutMs: replicaAckTimeoutMs(options.leaseTtlMs),
    };
    this.services = {
      client,
      cork: this.cork,
      turns: new StagingTurns(),
      keys,
      scripts: this.scripts,
      hot: this.hot,
      models: this.models,
      outcomeCreator,
      archive: archive && this.archivedFilter ? { outcomes: archive.outcomes, filter: this.archivedFilter } : undefined,
      logger,
      metrics: this.metrics,
      clock: deps.clock ?? Date.now,
    };
  }

  private archiversFor(archive: WorkerArchive): { outcomes: OutcomeArchiver; charges: ChargeArchiver } {
    const { client: redis, keys, logger } = this.deps;
    const { sql, retentionMs, metrics } = archive;
    const outcomes = new OutcomeArchiver({
      redis,
      keys,
      sql,
      retentionMs,
      leases: () => [...this.actors].map(([shard, { leaseValue }]) => ({ shard, leaseValue })),
      deleteScript: async (scriptKeys, args) => {
        const deleted = await this.scripts.run("archive-delete", scriptKeys, args);
        return deleted === LEASE_LOST ? "lease-lost" : deleted;
      },
      forget: (shard, refs) => {
        for (const ref of refs) this.hot.delete(shard, ref);
      },
      logger,
      metrics,
    });
    const charges = new ChargeArchiver({
      redis,
      keys,
      sql,
      shards: () => this.ownedShards,
      retentionMs,
      logger,
      metrics,
    });
    return { outcomes, charges };
  }

  /** Shards this worker currently owns, for tests and the readiness endpoint. */
  get ownedShards(): number[] {
    return [...this.actors.keys()].sort((a, b) => a - b);
  }

  /** Whether this worker holds the shard's lease now: the shard's webhook outbox is then its to dispatch. */
  owns(shard: number): boolean {
    return this.actors.has(shard);
  }

  async start(): Promise<void> {
    this.models.start();
    // Data from before the filters (or a Redis that lost them) needs them rebuilt; meanwhile batches ask
    // the archive about every unknown outcome, as they did before filters.
    this.archivedFilter?.prepare();
    await this.rebalance();
    this.joined = true;
    this.beat.start();
    this.lagSampler.start();
    this.archivers?.outcomes.start();
    this.archivers?.charges.start();
  }

  /** Sets the lag and dead-letter gauges of every owned shard. */
  private async sampleLag(): Promise<void> {
    const { client, keys, logger } = this.deps;
    await Promise.all(
      this.ownedShards.map(async (shard) => {
        try {
          const lag = await readShardLag(client, keys, shard, Date.now());
          // The shard may have moved while Redis answered: its new owner reports it now.
          if (!this.actors.has(shard)) return;
          const labels = { shard: String(shard) };
          this.metrics.shardLagEntries.set(labels, lag.entries);
          this.metrics.shardLagSeconds.set(labels, lag.oldestSeconds);
          this.metrics.deadLetterQueueSize.set(labels, lag.deadLetters);
        } catch (error) {
          logger.debug({ err: error, shard }, "shard lag sample failed");
        }
      }),
    );
  }

  /** A shard this worker no longer owns stops reporting here (its series would otherwise freeze). */
  private forgetShardGauges(shard: number): void {
    const labels = { shard: String(shard) };
    this.metrics.shardLagEntries.remove(labels);
    this.metrics.shardLagSeconds.remove(labels);
    this.metrics.deadLetterQueueSize.remove(labels);
  }

  requestTick(): void {
    for (const { actor } of this.actors.values()) actor.requestTick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Before the shards are given up: the archivers' last passes still have them.
    await this.archivers?.charges.stop();
    await this.archivers?.outcomes.stop();
    await this.archivedFilter?.stop();
    await this.beat.stop();
    await this.lagSampler.stop();
    await Promise.all([...this.actors.keys()].map((shard) => this.release(shard)));
    await this.membership.leave();
    await this.models.stop();
  }

  private async rebalance(): Promise<void> {
    if (this.stopped) return;
    const live = await this.membership.heartbeat();
    const desired = desiredShards(this.id, live, this.deps.options.shards);
    // Give up what is no longer ours first, so the new owner can take it on its next beat.
    for (const shard of [...this.actors.keys()]) {
      if (!desired.has(shard)) await this.release(shard);
    }
    // All at once: one slow renewal must not make the others late.
    await Promise.all(
      [...this.actors].map(async ([shard, { leaseValue }]) => {
        if (!(await this.leases.renew(shard, leaseValue))) this.lost(shard);
      }),
    );
    for (const shard of desired) {
      if (this.actors.has(shard)) continue;
      const leaseValue = await this.leases.acquire(shard);
      if (leaseValue !== undefined) this.own(shard, leaseValue);
    }
    this.metrics.ownedShards.set(this.actors.size);
    this.metrics.hotOutcomes.set(this.hot.size);
  }

  private own(shard: number, leaseValue: string): void {
    const { client, keys, options, logger } = this.deps;
    const openQuota = options.quotas?.openOutcomes ?? DEFAULT_QUOTAS.openOutcomes;
    const reader = duplicateClient(client);
    // The actor sees a dropped connection as a failed read and retries; ioredis reconnects by itself.
    reader.on("error", (error: Error) => logger.debug({ err: error, shard }, "shard reader connection error"));
    const actor = new ShardActor({
      lease: { shard, value: leaseValue, workerId: this.id, onLost: (lostShard) => this.lost(lostShard) },
      tuning: this.tuning,
      services: this.services,
      reader,
      openQuota: new OpenOutcomeQuota(
        client,
        keys.openOutcomes(shard),
        openQuota,
        openOutcomesPerShard(openQuota, options.shards),
      ),
    });
    this.actors.set(shard, { actor, leaseValue });
    this.metrics.leaseMoves.inc({ change: "acquired" });
    actor.start();
    logger.debug({ shard, lease: leaseValue }, "took shard");
  }

  /** The lease is gone (expired or taken): stop writing at once; Redis refuses our commits anyway. */
  private lost(shard: number): void {
    const owned = this.actors.get(shard);
    if (!owned) return;
    this.actors.delete(shard);
    this.metrics.leaseMoves.inc({ change: "lost" });
    this.forgetShardGauges(shard);
    this.deps.logger.warn({ shard }, "lost shard lease");
    void owned.actor.stop();
  }

  private async release(shard: number): Promise<void> {
    const owned = this.actors.get(shard);
    if (!owned) return;
    this.actors.delete(shard);
    this.metrics.leaseMoves.inc({ change: "released" });
    this.forgetShardGauges(shard);
    await owned.actor.stop();
    await this.leases.release(shard, owned.leaseValue);
    this.deps.logger.debug({ shard }, "released shard");
  }
}
