// Copies charges from Redis to PostgreSQL, the system of record for billing, and later deletes them from
// Redis. The shard's commit that makes a charge also appends it to the shard's archive queue (a stream,
// each entry naming the charge's own stream entry), so a charge is queued if and only if it exists; the
// worker archives the queues of the shards it owns: it reads a page, inserts the rows (idempotently: a
// charge's id is derived from its outcome), and only after PostgreSQL committed them moves those entries
// from the queue to the shard's archived stream. Once an archived entry is older than the hot retention,
// the charge's Redis entry is deleted: GET /v1/charges lists it from PostgreSQL in the same place. A crash
// in between repeats an insert that changes nothing; two workers briefly archiving one shard during a
// handover do the same.
import type { ChargeRecord, QueuedCharge } from "../outcomes/charge.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { isEntryId } from "../streams/entry-id.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import type { ArchiveMetrics } from "./archive-metrics.js";
import { MonthPartitions } from "../archive-db/month-partitions.js";
import { storableText } from "../archive-db/storable-text.js";
import { Mover } from "./mover.js";

const PAGE = 500;

export interface ChargeArchiverDeps {
  redis: RedisClient;
  keys: Keys;
  sql: ArchiveSql;
  /** The shards this worker owns now. */
  shards: () => readonly number[];
  /** How long an archived charge stays in Redis as well (at most 30 s: see outcome-archiver.ts). */
  retentionMs: number;
  logger: Logger;
  metrics: ArchiveMetrics;
  /** Between passes over the owned shards' queues. @default 500 */
  intervalMs?: number;
}

type ChargeRow = Record<keyof ChargeRecord | "account_id" | "shard" | "entry_ms" | "entry_seq", string | number | null>;

export class ChargeArchiver extends Mover {
  private readonly partitions: MonthPartitions;

  constructor(private readonly deps: ChargeArchiverDeps) {
    super({
      intervalMs: deps.intervalMs ?? 500,
      logger: deps.logger,
      errors: deps.metrics.errors,
      failure: "charge archive pass failed; the queue keeps the charges",
    });
    this.partitions = new MonthPartitions(deps.sql);
  }

  /** Archives everything queued now on the owned shards and deletes from Redis what was archived long enough ago. */
  override async pass(): Promise<void> {
    const waiting = await this.eachShard(
      this.deps.shards(),
      async (shard) => {
        const left = await this.drain(shard);
        await this.forget(shard);
        return left;
      },
      0,
    );
    this.deps.metrics.chargesBacklog.set(waiting.reduce((a, b) => a + b, 0));
  }

  /** Drains one shard's queue page by page; returns what is left in it. */
  private async drain(shard: number): Promise<number> {
    const { redis, keys, sql } = this.deps;
    const queue = keys.chargesToArchive(shard);
    const emptied = await this.pageByPage(
      PAGE,
      () => redis.xrange(queue, "-", "+", "COUNT", PAGE),
      async (entries) => {
        const rows = entries.map(([, fields]) => rowOf(shard, fields));
        const instants = rows.map((row) => Date.parse(String(row.confirmed_at)));
        await this.partitions.ensure("charges", instants);
        // One array per column, unnested: one prepared statement for every page (see outcome-archiver.ts).
        const column = (name: keyof ChargeRow): (string | number | null)[] => rows.map((row) => row[name]);
        await sql`
          INSERT INTO charges (id, account_id, outcome_key, customer_key, agent_key, rate_card_key, currency, unit_amount,
            attribution, amount, confirmed_at, shard, entry_ms, entry_seq)
          SELECT * FROM unnest(${column("id")}::text[], ${column("account_id")}::text[], ${column("outcome_key")}::text[],
            ${column("customer_key")}::text[], ${column("agent_key")}::text[], ${column("rate_card_key")}::text[],
            ${column("currency")}::text[], ${column("unit_amount")}::int8[], ${column("attribution")}::float8[],
            ${column("amount")}::int8[], ${column("confirmed_at")}::timestamptz[], ${column("shard")}::int4[],
            ${column("entry_ms")}::int8[], ${column("entry_seq")}::int8[])
          ON CONFLICT DO NOTHING`;
        await this.partitions.inserted("charges", instants).catch((error: unknown) => {
          this.deps.logger.warn({ err: error }, "analysing the charges' partitions failed");
        });
        const step = redis.multi();
        for (const row of rows) {
          if (row.entry_ms !== null)
            step.xadd(
              keys.chargesArchived(shard),
              "*",
              "a",
              String(row.account_id),
              "e",
              `${row.entry_ms}-${row.entry_seq}`,
            );
        }
        await step.xdel(queue, ...entries.map(([id]) => id)).exec();
        this.deps.metrics.chargesArchived.inc(entries.length);
      },
    );
    return emptied ? 0 : await redis.xlen(queue);
  }

  /** Deletes the Redis entries of charges archived more than the retention ago (at most 30 s). */
  private async forget(shard: number): Promise<void> {
    const { redis, keys } = this.deps;
    const archived = keys.chargesArchived(shard);
    const until = Date.now() - Math.min(30_000, this.deps.retentionMs);
    await this.pageByPage(
      PAGE,
      () => redis.xrange(archived, "-", String(until), "COUNT", PAGE),
      async (entries) => {
        const step = redis.multi();
        for (const [, fields] of entries) step.xdel(keys.charges(shard, fields[1]!), fields[3]!);
        await step.xdel(archived, ...entries.map(([id]) => id)).exec();
      },
    );
  }
}

/** The row of a queue entry: fields d (the queued charge) and p (its entry in the charge stream, if known). */
function rowOf(shard: number, fields: string[]): ChargeRow {
  const { account_id, charge } = JSON.parse(fields[1]!) as QueuedCharge;
  // Entries queued before charges recorded their position carry none: those stay in Redis as well.
  // Neither do charges with a NUL character in a key, which PostgreSQL stores as U+FFFD (storable-text.ts).
  const text = {
    account_id,
    outcome_key: charge.outcome_key,
    customer_key: charge.customer_key,
    agent_key: charge.agent_key,
    rate_card_key: charge.rate_card_key,
    currency: charge.currency,
  };
  const exact = Object.values(text).every((value) => storableText(value) === value);
  const position =
    exact && fields[2] === "p" && fields[3] !== undefined && isEntryId(fields[3]) ? fields[3].split("-") : undefined;
  return {
    id: storableText(charge.id),
    account_id: storableText(account_id),
    outcome_key: storableText(charge.outcome_key),
    customer_key: storableText(charge.customer_key),
    agent_key: storableText(charge.agent_key),
    rate_card_key: storableText(charge.rate_card_key),
    currency: storableText(charge.currency),
    unit_amount: charge.unit_amount,
    attribution: charge.attribution,
    amount: charge.amount,
    confirmed_at: charge.confirmed_at,
    shard: position ? shard : null,
    entry_ms: position?.[0] ?? null,
    entry_seq: position?.[1] ?? null,
  };
}
