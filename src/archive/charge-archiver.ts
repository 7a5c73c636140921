// Copies charges from Redis to PostgreSQL, the system of record for billing. The shard's commit that makes
// a charge also appends it to the shard's archive queue (a stream), so a charge is queued if and only if
// it exists; the worker archives the queues of the shards it owns: it reads a page, inserts the rows
// (idempotently: a charge's id is derived from its outcome), and only after PostgreSQL committed them
// deletes those entries from the queue. A crash in between repeats an insert that changes nothing; two
// workers briefly archiving one shard during a handover do the same.
import { Counter, Gauge, type Registry } from "prom-client";
import type { ChargeRecord, QueuedCharge } from "../outcomes/charge.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "./archive-db.js";

const PAGE = 500;

export interface ChargeArchiverDeps {
  redis: RedisClient;
  keys: Keys;
  sql: ArchiveSql;
  /** The shards this worker owns now. */
  shards: () => readonly number[];
  logger: Logger;
  registry: Registry;
  /** Between passes over the owned shards' queues. @default 500 */
  intervalMs?: number;
}

export class ChargeArchiver {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly months = new Set<string>();
  private readonly archived: Counter;
  private readonly errors: Counter;
  private readonly backlog: Gauge;

  constructor(private readonly deps: ChargeArchiverDeps) {
    const registers = [deps.registry];
    this.archived = new Counter({ name: "verdict_charges_archived_total", help: "Charges copied to PostgreSQL and taken off their shard's archive queue", registers });
    this.errors = new Counter({ name: "verdict_archive_errors_total", help: "Archive passes that failed (PostgreSQL or Redis errors); the queue keeps the charges and the next pass retries", registers });
    this.backlog = new Gauge({ name: "verdict_charges_archive_backlog", help: "Charges waiting in the archive queues of the shards this worker owns", registers });
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
        this.errors.inc();
        this.deps.logger.warn({ err: error, shard }, "charge archive pass failed; the queue keeps the charges");
      }
    }
    this.backlog.set(waiting);
  }

  /** Drains one shard's queue page by page; returns what is left in it. */
  private async drain(shard: number): Promise<number> {
    const { redis, keys, sql } = this.deps;
    const queue = keys.chargesToArchive(shard);
    for (;;) {
      const entries = await redis.xrange(queue, "-", "+", "COUNT", PAGE);
      if (entries.length === 0) return 0;
      const rows = entries.map(([, fields]) => rowOf(JSON.parse(fields[1]!) as QueuedCharge));
      await this.ensurePartitions(rows.map((row) => String(row.confirmed_at)));
      await sql`INSERT INTO charges ${sql(rows)} ON CONFLICT DO NOTHING`;
      await redis.xdel(queue, ...entries.map(([id]) => id));
      this.archived.inc(entries.length);
      if (entries.length < PAGE) return await redis.xlen(queue);
    }
  }

  /** Creates the month partitions these instants fall in, once per process. */
  private async ensurePartitions(instants: readonly string[]): Promise<void> {
    for (const instant of instants) {
      const month = instant.slice(0, 7);
      if (this.months.has(month)) continue;
      if (!/^\d{4}-\d{2}$/.test(month)) throw new Error(`charge confirmed at an instant outside years 0000-9999: ${instant}`);
      const [year, monthNumber] = month.split("-").map(Number) as [number, number];
      const from = `${month}-01`;
      const to = monthNumber === 12 ? `${year + 1}-01-01` : `${year}-${String(monthNumber + 1).padStart(2, "0")}-01`;
      const table = `charges_y${year}m${String(monthNumber).padStart(2, "0")}`;
      try {
        await this.deps.sql.unsafe(`CREATE TABLE IF NOT EXISTS ${table} PARTITION OF charges FOR VALUES FROM ('${from}') TO ('${to}')`);
      } catch (error) {
        // Another worker created it at the same moment: IF NOT EXISTS does not cover that race.
        if ((error as { code?: string }).code !== "42P07") throw error;
      }
      this.months.add(month);
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
