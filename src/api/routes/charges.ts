// Billing reads: charges of confirmed Variant B outcomes, and billable event counts per customer.
import { ApiError } from "../../errors/api-error.js";
import { INSTANT_RULE, parseInstant } from "../../ingress/instant.js";
import type { Route } from "../../ingress/router.js";
import type { ChargeStore, CustomerUsage } from "../../stores/charge-store.js";
import { filterParam, invalidCursor, paging } from "../request-checks.js";

/** The body of GET /v1/usage: billable events per customer, in key byte order. */
export interface UsageView {
  usage: CustomerUsage[];
}

function instant(query: URLSearchParams, name: string): number | undefined {
  const text = filterParam(query, name);
  if (text === undefined) return undefined;
  const ms = parseInstant(text);
  if (ms === undefined)
    throw new ApiError("VALIDATION_ERROR", `${name} must be ${INSTANT_RULE}`, [
      { path: name, message: `must be ${INSTANT_RULE}` },
    ]);
  return ms;
}

export function chargeRoutes(charges: ChargeStore): Route[] {
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
        const page = await charges.list(req.accountId, { customerKey, from, to }, limit, cursor);
        if (!page) throw invalidCursor();
        return { status: 200, body: { charges: page.items, next_cursor: page.nextCursor } };
      },
    },
    {
      method: "GET",
      path: "/v1/usage",
      async handler(req) {
        return {
          status: 200,
          body: {
            usage: await charges.usage(req.accountId, filterParam(req.query, "customer_key")),
          } satisfies UsageView,
        };
      },
    },
  ];
}
