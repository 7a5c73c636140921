// Billing reads from Redis: the charges of confirmed Variant B outcomes (merged from the shards' charge
// streams) and the billable event counts per customer.
import type { ChargeRecord } from "../outcomes/charge.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { ArchivedCharges } from "../archive-read/archived-charges.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { FILTERED_PAGE, filteredPage, formatPosition, parseCursorPosition } from "./merged-shard-streams.js";
import { compareUtf8 } from "./utf8-order.js";

/** Filters of a listing; undefined where the request gave none. */
export interface ChargeFilter {
  customerKey: string | undefined;
  /** Inclusive lower bound on confirmed_at (ms). */
  from: number | undefined;
  /** Exclusive upper bound on confirmed_at (ms). */
  to: number | undefined;
}

export interface CustomerUsage {
  customer_key: string;
  billable_events: number;
}

export class ChargeStore {
  /** `archive`: charges that may have left Redis, listed in their place. */
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
    private readonly archive?: ArchivedCharges,
  ) {}

  /** One page of charges in commit order, or undefined when the cursor is not one this store gave out. */
  async list(
    accountId: string,
    filter: ChargeFilter,
    limit: number,
    cursor: string | null,
  ): Promise<{ items: ChargeRecord[]; nextCursor: string | null } | undefined> {
    const after = cursor === null ? undefined : parseCursorPosition(decodeCursor(cursor), this.shards);
    if (cursor !== null && !after) return undefined;
    const { customerKey, from, to } = filter;
    const page = await filteredPage(
      this.client,
      this.shards,
      (shard) => this.keys.charges(shard, accountId),
      after,
      limit,
      (entry) => {
        const charge = JSON.parse(entry.payload.toString()) as ChargeRecord;
        const confirmed = Date.parse(charge.confirmed_at);
        if (customerKey !== undefined && charge.customer_key !== customerKey) return undefined;
        if ((from !== undefined && confirmed < from) || (to !== undefined && confirmed >= to)) return undefined;
        return charge;
      },
      // A charge is committed at or after its confirmation, so entries before `from` cannot match.
      from === undefined ? {} : { from },
      customerKey === undefined && to === undefined ? limit + 1 : Math.max(limit + 1, FILTERED_PAGE),
      this.archive && ((position, count) => this.archive!.page(accountId, filter, position, count)),
    );
    return { items: page.items, nextCursor: page.next ? encodeCursor(formatPosition(page.next)) : null };
  }

  /** Billable events per customer summed over the shards, in key byte order (as every list of keys). */
  async usage(accountId: string, customerKey: string | undefined): Promise<CustomerUsage[]> {
    const totals = new Map<string, number>();
    const perShard = await Promise.all(
      Array.from({ length: this.shards }, (_, shard) => this.client.hgetall(this.keys.usage(shard, accountId))),
    );
    for (const counts of perShard) {
      for (const [customer, count] of Object.entries(counts))
        totals.set(customer, (totals.get(customer) ?? 0) + Number(count));
    }
    const usage = [...totals]
      .filter(([customer]) => customerKey === undefined || customer === customerKey)
      .sort(([a], [b]) => compareUtf8(a, b))
      .map(([customer, billable]) => ({ customer_key: customer, billable_events: billable }));
    if (customerKey !== undefined && usage.length === 0) usage.push({ customer_key: customerKey, billable_events: 0 });
    return usage;
  }
}
