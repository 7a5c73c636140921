// Prometheus metrics of the consumer side: what the Grafana dashboards watch for lag, verdicts and failures.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Scores } from "../scores/score-state.js";
import type { ChangedOutcome } from "./batch-fold.js";

export interface ActorMetrics {
  eventsProcessed: Counter;
  deadLetters: Counter<"code">;
  verdicts: Counter<"status">;
  /** Verdicts committed with the snapshot prepared before their deadline (prepared-verdicts.ts). */
  preparedVerdicts: Counter;
  charges: Counter;
  snapshotLoads: Counter;
  malformedEntries: Counter;
  batchSeconds: Histogram;
  eventLagSeconds: Histogram;
  ownedShards: Gauge;
  hotOutcomes: Gauge;
  /** Shard leases this worker took (`acquired`), gave back (`released`) or found taken or expired (`lost`). */
  leaseMoves: Counter<"change">;
  /** Size of each outcome snapshot a commit writes (msgpack bytes). */
  snapshotBytes: Histogram;
  /** Per owned shard, sampled on a timer: stream entries not yet committed (undelivered plus pending). */
  shardLagEntries: Gauge<"shard">;
  /** Per owned shard, sampled on a timer: age of the oldest entry not yet committed (0 when none). */
  shardLagSeconds: Gauge<"shard">;
  /** Per owned shard, sampled on a timer: dead letters waiting in the shard, over every account. */
  deadLetterQueueSize: Gauge<"shard">;
  /** Records a score each time a commit changes it (to a number: nulls, before a cohort's warm-up, are not observed). */
  observeScore(name: keyof Scores, value: number): void;
}

const SCORE_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

type Registers = Registry[];

export function createActorMetrics(registry: Registry): ActorMetrics {
  const registers = [registry];
  const observeScore = scoreObserver(registers);
  return { ...batchMetrics(registers), ...shardMetrics(registers), observeScore };
}

type BatchMetrics = Pick<
  ActorMetrics,
  | "eventsProcessed"
  | "deadLetters"
  | "verdicts"
  | "preparedVerdicts"
  | "charges"
  | "snapshotLoads"
  | "malformedEntries"
  | "batchSeconds"
  | "eventLagSeconds"
  | "snapshotBytes"
>;

/** What the commits of batches did: entries, verdicts, charges, dead letters, and how long they took. */
function batchMetrics(registers: Registers): BatchMetrics {
  return {
    eventsProcessed: new Counter({
      name: "verdict_events_processed_total",
      help: "Stream entries applied, skipped or dead-lettered by shard actors",
      registers,
    }),
    deadLetters: new Counter({
      name: "verdict_dead_letters_total",
      help: "Events set aside in the dead-letter queue, by error code",
      labelNames: ["code"],
      registers,
    }),
    verdicts: new Counter({
      name: "verdict_verdicts_total",
      help: "Outcomes that reached a verdict",
      labelNames: ["status"],
      registers,
    }),
    preparedVerdicts: new Counter({
      name: "verdict_prepared_verdicts_total",
      help: "Verdicts committed with the snapshot prepared before their deadline (the others were packed at it)",
      registers,
    }),
    charges: new Counter({
      name: "verdict_charges_total",
      help: "Charges recorded for confirmed Variant B outcomes",
      registers,
    }),
    snapshotLoads: new Counter({
      name: "verdict_snapshot_loads_total",
      help: "Outcome snapshots loaded from Redis (hot-state misses)",
      registers,
    }),
    malformedEntries: new Counter({
      name: "verdict_malformed_entries_total",
      help: "Shard stream entries that were not event envelopes (not written by the ingress)",
      registers,
    }),
    batchSeconds: new Histogram({
      name: "verdict_batch_commit_seconds",
      help: "Time to apply and commit one read batch of a shard",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    eventLagSeconds: new Histogram({
      name: "verdict_event_lag_seconds",
      help: "From an event's receipt at the edge to its effect committed, for the oldest event of each committed batch",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    snapshotBytes: new Histogram({
      name: "verdict_snapshot_bytes",
      help: "Size of each outcome snapshot written by a commit (msgpack bytes)",
      buckets: [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 262144],
      registers,
    }),
  };
}

type ShardMetrics = Pick<
  ActorMetrics,
  "ownedShards" | "hotOutcomes" | "leaseMoves" | "shardLagEntries" | "shardLagSeconds" | "deadLetterQueueSize"
>;

/** What this worker holds: shards and their leases, outcomes in memory, and each owned shard's backlog. */
function shardMetrics(registers: Registers): ShardMetrics {
  return {
    ownedShards: new Gauge({ name: "verdict_owned_shards", help: "Shards whose lease this worker holds", registers }),
    hotOutcomes: new Gauge({ name: "verdict_hot_outcomes", help: "Outcomes held in memory by this worker", registers }),
    leaseMoves: new Counter({
      name: "verdict_lease_moves_total",
      help: "Shard leases this worker acquired, released, or lost (taken or expired), by change",
      labelNames: ["change"],
      registers,
    }),
    shardLagEntries: new Gauge({
      name: "verdict_shard_lag_entries",
      help: "Stream entries of an owned shard not yet committed (undelivered plus pending), sampled on a timer",
      labelNames: ["shard"],
      registers,
    }),
    shardLagSeconds: new Gauge({
      name: "verdict_shard_lag_seconds",
      help: "Age of the oldest stream entry of an owned shard not yet committed (0 when none), sampled on a timer",
      labelNames: ["shard"],
      registers,
    }),
    deadLetterQueueSize: new Gauge({
      name: "verdict_dead_letter_queue_size",
      help: "Dead letters waiting in an owned shard, over every account, sampled on a timer",
      labelNames: ["shard"],
      registers,
    }),
  };
}

/** Scores by name, each a child resolved once: a labelled observe looks its label set up on every call. */
function scoreObserver(registers: Registers): ActorMetrics["observeScore"] {
  const scores = new Histogram({
    name: "verdict_outcome_score",
    help: "Model scores of outcomes, observed each time a commit changes one, by score (trajectory, anomaly, novelty)",
    labelNames: ["score"],
    buckets: SCORE_BUCKETS,
    registers,
  });
  const byScore = {
    trajectory: scores.labels("trajectory"),
    anomaly: scores.labels("anomaly"),
    novelty: scores.labels("novelty"),
  };
  return (name, value) => {
    byScore[name].observe(value);
  };
}

/** Counts a committed batch's or settle's verdicts, one increment per status rather than one per outcome. */
export function countVerdicts(
  metrics: Pick<ActorMetrics, "verdicts" | "preparedVerdicts">,
  changed: ReadonlyMap<string, ChangedOutcome>,
): void {
  let confirmed = 0;
  let failed = 0;
  let prepared = 0;
  for (const { record, snapshot } of changed.values()) {
    if (record.status === "CONFIRMED") confirmed++;
    else if (record.status === "FAILED") failed++;
    if (snapshot) prepared++;
  }
  if (confirmed > 0) metrics.verdicts.inc({ status: "CONFIRMED" }, confirmed);
  if (failed > 0) metrics.verdicts.inc({ status: "FAILED" }, failed);
  if (prepared > 0) metrics.preparedVerdicts.inc(prepared);
}
