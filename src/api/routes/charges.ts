// Billing reads: charges of confirmed Variant B outcomes, and billable event counts per customer.
import { ApiError } from "../../errors/api-error.js";
import type { Route } from "../../ingress/router.js";
import type { ChargeStore } from "../../stores/charge-store.js";
import { filterParam, invalidCursor, paging } from "../request-checks.js";

function instant(query: URLSearchParams, name: string): number | undefined {
  const text = filterParam(query, name);
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new ApiError("VALIDATION_ERROR", `${name} must be an ISO 8601 timestamp`, [{ path: name, message: "expected an ISO 8601 timestamp" }]);
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
        return { status: 200, body: { usage: await charges.usage(req.accountId, filterParam(req.query, "customer_key")) } };
      },
    },
  ];
}
