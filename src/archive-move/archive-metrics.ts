// The archive's metrics, registered once per process and shared by the charge and outcome archivers.
import { Counter, Gauge, type Registry } from "prom-client";

export interface ArchiveMetrics {
  chargesArchived: Counter;
  chargesBacklog: Gauge;
  outcomesArchived: Counter;
  /** Insight rollups (one account's day on one shard) copied to PostgreSQL. */
  rollupsArchived: Counter;
  /** Outcomes kept in Redis because PostgreSQL cannot store their key (a NUL character). */
  outcomesUnarchivable: Counter;
  /** Age of the oldest settled outcome past its retention still in Redis, over the owned shards. */
  lagSeconds: Gauge;
  errors: Counter;
}

export function createArchiveMetrics(registry: Registry): ArchiveMetrics {
  const registers = [registry];
  return {
    chargesArchived: new Counter({
      name: "verdict_charges_archived_total",
      help: "Charges copied to PostgreSQL and taken off their shard's archive queue",
      registers,
    }),
    chargesBacklog: new Gauge({
      name: "verdict_charges_archive_backlog",
      help: "Charges waiting in the archive queues of the shards this worker owns",
      registers,
    }),
    outcomesArchived: new Counter({
      name: "verdict_outcomes_archived_total",
      help: "Settled outcomes moved to PostgreSQL (rows committed, then deleted from Redis)",
      registers,
    }),
    rollupsArchived: new Counter({
      name: "verdict_insight_rollups_archived_total",
      help: "Insight rollups (an account's day on a shard) copied to PostgreSQL on their way out of Redis",
      registers,
    }),
    outcomesUnarchivable: new Counter({
      name: "verdict_outcomes_unarchivable_total",
      help: "Settled outcomes kept in Redis because their key or account id holds a NUL character, which PostgreSQL text cannot store",
      registers,
    }),
    lagSeconds: new Gauge({
      name: "verdict_archive_lag_seconds",
      help: "Age past its retention of the oldest settled outcome still in Redis, on the shards this worker owns (0 when none is due)",
      registers,
    }),
    errors: new Counter({
      name: "verdict_archive_errors_total",
      help: "Archive passes that failed (PostgreSQL or Redis errors); Redis keeps what was not archived and the next pass retries",
      registers,
    }),
  };
}
