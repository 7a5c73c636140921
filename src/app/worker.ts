// The worker part (roles all and worker): the shard actors and what runs beside them on the shards this
// process owns (the archivers, the webhook dispatcher), and the monitor whose ticks settle due outcomes.
import { Worker } from "../actors/worker.js";
import { DeadLetterArchiver } from "../archive-move/dead-letter-archiver.js";
import { createDeadLetterArchiveMetrics } from "../archive-move/dead-letter-metrics.js";
import { RollupMover } from "../archive-move/rollup-mover.js";
import { SettlementMonitor } from "../monitor/settlement-monitor.js";
import { createAgentOutcome, prefetchAgentRecords } from "../outcomes/agent-outcome.js";
import { BatchRecordReader } from "../records/batch-record-reader.js";
import { RecordStore } from "../records/record-store.js";
import type { Lifecycle } from "../runtime/lifecycle.js";
import { WebhookDispatcher } from "../webhooks/dispatcher.js";
import { createWebhookMetrics } from "../webhooks/webhook-metrics.js";
import type { Core } from "./core.js";

export async function startWorker(core: Core, lifecycle: Lifecycle): Promise<Worker> {
  const { redis, keys, options, logger, registry, clock, archive } = core;
  const records = new RecordStore(redis, keys);
  const worker = new Worker({
    client: redis,
    keys,
    options,
    logger,
    registry,
    outcomeCreator: () => {
      const reader = new BatchRecordReader(records);
      return {
        prefetch: (event) => prefetchAgentRecords(reader, event),
        create: (event) => createAgentOutcome(reader, event),
      };
    },
    clock,
    archive,
  });
  await worker.start();
  lifecycle.onStop(() => worker.stop());
  startDeadLetterArchiver(core, worker, lifecycle);
  if (archive) {
    const rollupMover = new RollupMover({
      redis,
      keys,
      sql: archive.sql,
      shards: () => worker.ownedShards,
      retentionMs: archive.retentionMs,
      logger,
      metrics: archive.metrics,
    });
    rollupMover.start();
    lifecycle.onStop(() => rollupMover.stop());
  }
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
    limits: {
      retentionMs: options.webhookRetentionMs,
      logMax: options.webhookLogMax,
      backlogMax: options.webhookBacklogMax,
    },
    logger,
    metrics: createWebhookMetrics(registry),
  });
  dispatcher.start();
  lifecycle.onStop(() => dispatcher.stop());
  const monitor = new SettlementMonitor(worker, registry, logger);
  monitor.start();
  lifecycle.onStop(() => monitor.stop());
  core.readiness.push({ name: "joined shard membership", check: () => worker.joined });
  return worker;
}

/** Without an archive too: the same limits then drop dead letters, so Redis stays bounded. */
function startDeadLetterArchiver(core: Core, worker: Worker, lifecycle: Lifecycle): void {
  const { redis, keys, options, logger, registry, archive } = core;
  const archiver = new DeadLetterArchiver({
    redis,
    keys,
    sql: archive?.sql,
    shardCount: options.shards,
    shards: () => worker.ownedShards,
    retentionMs: options.dlqRetentionMs,
    maxPerAccount: options.dlqMaxPerAccount,
    logger,
    metrics: createDeadLetterArchiveMetrics(registry),
  });
  archiver.start();
  lifecycle.onStop(() => archiver.stop());
}
