// Charges and usage: charges filtered by customer and period (UTC days), totals per currency, and the
// billable events counted per customer.
import type { ChargeListQuery } from "../../client/routes.js";
import type { Charge, Usage } from "../../client/wire-types.js";
import type { ListPage } from "../../client/paging.js";
import { given, refusedCursor, refusedWith } from "../api-answers.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { BASE, field, layout, notice } from "../layout.js";
import { formatMoney } from "../money.js";
import { page, type WebResponse } from "../web.js";
import { noSuchPage, pager } from "./record-pages.js";

/** Totals read at most this many charges (API pages of 1000): the page stays quick on a large account. */
export const TOTALS_LIMIT = 10_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

interface Period {
  from?: string;
  to?: string;
  errors: Record<string, string>;
}

/** From and To are whole UTC days, both included: to the API, [from 00:00, the day after To 00:00). */
function period(query: URLSearchParams): Period {
  const result: Period = { errors: {} };
  const from = query.get("from") ?? "";
  const to = query.get("to") ?? "";
  if (from !== "") {
    if (DAY.test(from) && !Number.isNaN(Date.parse(from))) result.from = `${from}T00:00:00.000Z`;
    else result.errors.from = "Use a date like 2026-11-01.";
  }
  if (to !== "") {
    if (DAY.test(to) && !Number.isNaN(Date.parse(to)))
      result.to = new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000).toISOString();
    else result.errors.to = "Use a date like 2026-11-30.";
  }
  if (result.from && result.to && result.from >= result.to)
    result.errors.to = "The end date must not be before the start date.";
  return result;
}

interface Totals {
  byCurrency: Map<string, number>;
  counted: number;
  complete: boolean;
}

async function totals(ctx: PageContext, filter: ChargeListQuery): Promise<Totals> {
  const byCurrency = new Map<string, number>();
  let cursor: string | undefined;
  let counted = 0;
  for (;;) {
    const answer = await ctx.client.charges.list({ ...filter, cursor, limit: 1000 });
    for (const charge of answer.charges)
      byCurrency.set(charge.currency, (byCurrency.get(charge.currency) ?? 0) + charge.amount);
    counted += answer.charges.length;
    if (answer.next_cursor === null) return { byCurrency, counted, complete: true };
    if (counted >= TOTALS_LIMIT) return { byCurrency, counted, complete: false };
    cursor = answer.next_cursor;
  }
}

function totalsSection(sums: Totals): Html {
  return html`<h2>Totals</h2>
${
  sums.byCurrency.size === 0
    ? html`<p>No charges in this selection.</p>`
    : html`<div class="cards">${[...sums.byCurrency].map(([currency, amount]) => html`<div class="card" data-testid="total-${currency}"><span class="number">${formatMoney(amount, currency)}</span>${currency}</div>`)}</div>`
}
${sums.complete ? "" : html`<p class="hint">Totals of the first ${sums.counted} charges; narrow the period for exact totals.</p>`}`;
}

function chargesTable(charges: readonly Charge[]): Html {
  if (charges.length === 0) return html`<p>No charges.</p>`;
  const rows = charges.map(
    (c) =>
      html`<tr><td>${c.confirmed_at}</td><td><a href="${BASE}/outcomes/${encodeURIComponent(c.outcome_key)}">${c.outcome_key}</a></td><td>${c.customer_key}</td><td>${c.agent_key}</td><td>${c.rate_card_key}</td><td>${formatMoney(c.unit_amount, c.currency)} × ${c.attribution}</td><td>${formatMoney(c.amount, c.currency)}</td></tr>`,
  );
  return html`<table aria-label="Charges"><thead><tr><th scope="col">Confirmed</th><th scope="col">Outcome</th><th scope="col">Customer</th><th scope="col">Agent</th><th scope="col">Rate card</th><th scope="col">Unit × attribution</th><th scope="col">Amount</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function usageTable(usage: Usage["usage"]): Html {
  if (usage.length === 0) return html`<p>No billable events yet.</p>`;
  return html`<table aria-label="Usage"><thead><tr><th scope="col">Customer</th><th scope="col">Billable events</th></tr></thead><tbody>${usage.map((u) => html`<tr><td>${u.customer_key}</td><td>${u.billable_events}</td></tr>`)}</tbody></table>`;
}

async function chargesPage(ctx: PageContext): Promise<WebResponse> {
  const q = ctx.req.query;
  const customer = q.get("customer_key") ?? "";
  const when = period(q);
  const form = html`<form method="get" action="${BASE}/charges" class="filters" role="search">
  ${field("Customer", "customer_key", customer)}
  ${field("From", "from", q.get("from") ?? "", { type: "date", error: when.errors.from })}
  ${field("To", "to", q.get("to") ?? "", { type: "date", error: when.errors.to })}
  <button type="submit">Filter</button>
</form>`;
  if (Object.keys(when.errors).length > 0) return page(400, layout(ctx.viewer, "/charges", "Charges and usage", form));
  const filter: ChargeListQuery = { customer_key: customer || undefined, from: when.from, to: when.to };
  let answer: ListPage<"charges", Charge>;
  try {
    answer = await ctx.client.charges.list({ ...filter, cursor: given(q, "cursor") });
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, "/charges", `${BASE}/charges`);
    if (refusedWith(error, "VALIDATION_ERROR")) {
      return page(
        400,
        layout(
          ctx.viewer,
          "/charges",
          "Charges and usage",
          html`${notice("The service refused these dates (it keeps 1970 to 9999); filter again.")}${form}`,
        ),
      );
    }
    throw error;
  }
  const sums = await totals(ctx, filter);
  const { usage } = await ctx.client.usage.get({ customer_key: customer || undefined });
  const content = html`${form}
${totalsSection(sums)}
<h2>Charges</h2>
${chargesTable(answer.charges)}
${pager(ctx, answer.next_cursor)}
<h2>Usage</h2>
${usageTable(usage)}`;
  return page(200, layout(ctx.viewer, "/charges", "Charges and usage", content));
}

export const chargeRoutes: DashboardRoute[] = [{ method: "GET", path: "/charges", handle: chargesPage }];
