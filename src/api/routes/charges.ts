// Billing reads: charges of confirmed Variant B outcomes, and billable event counts per customer.
import { ApiError } from "../../errors/api-error.js";
import { INSTANT_RULE, parseInstant } from "../../ingress/instant.js";
import type { Route } from "../../ingress/router.js";
import type { ChargeRecord } from "../../outcomes/charge.js";
import { FILTERED_PAGE, filteredPage, formatPosition, parseCursorPosition } from "../../outcomes/merged-shard-streams.js";
import { decodeCursor, encodeCursor } from "../../outcomes/outcome-store.js";
import { compareUtf8 } from "../../outcomes/utf8-order.js";
import type { RedisClient } from "../../redis/client.js";
import type { Keys } from "../../streams/keys.js";
import { filterParam, invalidCursor, paging } from "../request-checks.js";

function instant(query: URLSearchParams, name: string): number | undefined {
  const text = filterParam(query, name);
  if (text === undefined) return undefined;
  const ms = parseInstant(text);
  if (ms === undefined) throw new ApiError("VALIDATION_ERROR", `${name} must be ${INSTANT_RULE}`, [{ path: name, message: `must be ${INSTANT_RULE}` }]);
  return ms;
}

export function chargeRoutes(client: RedisClient, keys: Keys, shards: number): Route[] {
  return [
    {
      method: "GET",
      path: "/v1/charges",
      async handler(req) {
        const { limit, cursor } = paging(req.query);
        const customerKey = filterParam(req.query, "customer_key");
        // [from, to) on confirmed_at.
        const from = instant(req.query, "from");
        const to = instant(req.query, "to");
        const after = cursor === null ? undefined : parseCursorPosition(decodeCursor(cursor), shards);
        if (cursor !== null && !after) throw invalidCursor();
        const page = await filteredPage(
          client,
          shards,
          (shard) => keys.charges(shard, req.accountId),
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
        );
        return { status: 200, body: { charges: page.items, next_cursor: page.next ? encodeCursor(formatPosition(page.next)) : null } };
      },
    },
    {
      method: "GET",
      path: "/v1/usage",
      async handler(req) {
        const customerKey = filterParam(req.query, "customer_key");
        const totals = new Map<string, number>();
        const perShard = await Promise.all(Array.from({ length: shards }, (_, shard) => client.hgetall(keys.usage(shard, req.accountId))));
        for (const counts of perShard) {
          for (const [customer, count] of Object.entries(counts)) totals.set(customer, (totals.get(customer) ?? 0) + Number(count));
        }
        const usage = [...totals]
          .filter(([customer]) => customerKey === undefined || customer === customerKey)
          // Byte order, as every other list of keys (Redis orders them so).
          .sort(([a], [b]) => compareUtf8(a, b))
          .map(([customer, billable]) => ({ customer_key: customer, billable_events: billable }));
        if (customerKey !== undefined && usage.length === 0) usage.push({ customer_key: customerKey, billable_events: 0 });
        return { status: 200, body: { usage } };
      },
    },
  ];
}
