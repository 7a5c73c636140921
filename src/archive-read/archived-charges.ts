// Reads of the charges the archive holds in their listing position (those whose Redis entry may be gone),
// as the entries of the shards' charge streams would give them, so a listing merges both as one order.
import type { ChargeRecord } from "../outcomes/charge.js";
import type { ShardEntry, StreamPosition } from "../stores/merged-shard-streams.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import { fromArchive } from "./archive-unavailable.js";

export interface ArchivedChargeFilter {
  customerKey: string | undefined;
  /** Inclusive lower bound on confirmed_at (ms). */
  from: number | undefined;
  /** Exclusive upper bound on confirmed_at (ms). */
  to: number | undefined;
}

interface ChargeRow {
  shard: number;
  entry_ms: string;
  entry_seq: string;
  id: string;
  outcome_key: string;
  customer_key: string;
  agent_key: string;
  rate_card_key: string;
  currency: string;
  unit_amount: string;
  attribution: number;
  amount: string;
  confirmed_at: Date;
}

export class ArchivedCharges {
  constructor(private readonly sql: ArchiveSql) {}

  /** Up to `count` archived charges after `after` in listing order (entry id, then shard). */
  async page(
    accountId: string,
    filter: ArchivedChargeFilter,
    after: StreamPosition | undefined,
    count: number,
  ): Promise<ShardEntry[]> {
    const { sql } = this;
    const [ms, seq] = after ? after.entryId.split("-") : ["-1", "0"];
    const rows = await fromArchive(
      () => sql<ChargeRow[]>`
      SELECT shard, entry_ms, entry_seq, id, outcome_key, customer_key, agent_key, rate_card_key, currency, unit_amount, attribution, amount, confirmed_at
      FROM charges
      WHERE account_id = ${accountId} AND entry_ms IS NOT NULL
        AND (entry_ms, entry_seq, shard) > (${ms!}::numeric, ${seq!}::numeric, ${after?.shard ?? -1})
        ${filter.customerKey === undefined ? sql`` : sql`AND customer_key = ${filter.customerKey}`}
        ${filter.from === undefined ? sql`` : sql`AND confirmed_at >= ${new Date(filter.from)}`}
        ${filter.to === undefined ? sql`` : sql`AND confirmed_at < ${new Date(filter.to)}`}
      ORDER BY entry_ms, entry_seq, shard LIMIT ${count}`,
    );
    return rows.map((row) => {
      // The fields in the order the charge stream holds them, so the JSON is the same before and after.
      const charge: ChargeRecord = {
        id: row.id,
        outcome_key: row.outcome_key,
        customer_key: row.customer_key,
        agent_key: row.agent_key,
        rate_card_key: row.rate_card_key,
        currency: row.currency,
        unit_amount: Number(row.unit_amount),
        attribution: row.attribution,
        amount: Number(row.amount),
        confirmed_at: row.confirmed_at.toISOString(),
      };
      return {
        shard: row.shard,
        entryId: `${row.entry_ms}-${row.entry_seq}`,
        payload: Buffer.from(JSON.stringify(charge)),
      };
    });
  }
}
