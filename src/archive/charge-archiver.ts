// Copies charges from Redis to PostgreSQL, the system of record for billing. The shard's commit that makes
// a charge also appends it to the shard's archive queue (a stream), so a charge is queued if and only if
// it exists; the worker archives the queues of the shards it owns: it reads a page, inserts the rows
// (idempotently: a charge's id is derived from its outcome), and only after PostgreSQL committed them
// deletes those entries from the queue. A crash in between repeats an insert that changes nothing; two
// workers briefly archiving one shard during a handover do the same.
import type { ChargeRecord, QueuedCharge } from "../outcomes/charge.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "./archive-db.js";
import type { ArchiveMetrics } from "./archive-metrics.js";
import { MonthPartitions } from "./month-partitions.js";

const PAGE = 500;

export interface ChargeArchiverDeps {
  redis: RedisClient;
  keys: Keys;
  sql: ArchiveSql;
  /** The shards this worker owns now. */
  shards: () => readonly number[];
  logger: Logger;
  metrics: ArchiveMetrics;
  /** Between passes over the owned shards' queues. @default 500 */
  intervalMs?: number;
}

export class ChargeArchiver {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly partitions: MonthPartitions;

  constructor(private readonly deps: ChargeArchiverDeps) {
    this.partitions = new MonthPartitions(deps.sql);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.pass().finally(() => (this.running = undefined));
    }, this.deps.intervalMs ?? 500);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Archives everything queued now on the owned shards. */
  async pass(): Promise<void> {
    let waiting = 0;
    for (const shard of this.deps.shards()) {
      try {
        waiting += await this.drain(shard);
      } catch (error) {
        this.deps.metrics.errors.inc();
        this.deps.logger.warn({ err: error, shard }, "charge archive pass failed; the queue keeps the charges");
      }
    }
    this.deps.metrics.chargesBacklog.set(waiting);
  }

  /** Drains one shard's queue page by page; returns what is left in it. */
  private async drain(shard: number): Promise<number> {
    const { redis, keys, sql } = this.deps;
    const queue = keys.chargesToArchive(shard);
    for (;;) {
      const entries = await redis.xrange(queue, "-", "+", "COUNT", PAGE);
      if (entries.length === 0) return 0;
      const rows = entries.map(([, fields]) => rowOf(JSON.parse(fields[1]!) as QueuedCharge));
      await this.partitions.ensure("charges", rows.map((row) => Date.parse(String(row.confirmed_at))));
      await sql`INSERT INTO charges ${sql(rows)} ON CONFLICT DO NOTHING`;
      await redis.xdel(queue, ...entries.map(([id]) => id));
      this.deps.metrics.chargesArchived.inc(entries.length);
      if (entries.length < PAGE) return await redis.xlen(queue);
    }
  }
}

function rowOf({ account_id, charge }: QueuedCharge): Record<keyof ChargeRecord | "account_id", string | number> {
  return {
    id: charge.id,
    account_id,
    outcome_key: charge.outcome_key,
    customer_key: charge.customer_key,
    agent_key: charge.agent_key,
    rate_card_key: charge.rate_card_key,
    currency: charge.currency,
    unit_amount: charge.unit_amount,
    attribution: charge.attribution,
    amount: charge.amount,
    confirmed_at: charge.confirmed_at,
  };
}
