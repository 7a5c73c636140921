// The insight page of each task, agent and customer: its outcomes and confirmation rate over a period,
// time to verdict, charges per currency, and for tasks and agents why their outcomes fail.
import { compileCondition, conditionClauses, parseCondition } from "../../condition/index.js";
import { isNotFound } from "../api-answers.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { markClause, type ConditionClause } from "../insights/clause-marks.js";
import { fetchInsights, groupOf, periodOf, PERIODS, type GroupBy, type Period } from "../insights/fetch.js";
import {
  failingClausesTable,
  outcomeBars,
  rateLine,
  revenueBars,
  timeToVerdictLines,
  totalCards,
  type ClauseRow,
} from "../insights/sections.js";
import { currenciesOf, type InsightGroup } from "../insights/view.js";
import { BASE, layout } from "../layout.js";
import { page, type WebResponse } from "../web.js";

interface GroupKind {
  segment: "tasks" | "agents" | "customers";
  groupBy: GroupBy;
  singular: string;
  /** The outcomes list's filter for this kind. */
  filter: "task_key" | "agent_key" | "customer_key";
}

const KINDS: readonly GroupKind[] = [
  { segment: "tasks", groupBy: "task", singular: "task", filter: "task_key" },
  { segment: "agents", groupBy: "agent", singular: "agent", filter: "agent_key" },
  { segment: "customers", groupBy: "customer", singular: "customer", filter: "customer_key" },
];

/** Where a group's insight page is. */
export function insightsPath(kind: "tasks" | "agents" | "customers", key: string): string {
  return `${BASE}/${kind}/${encodeURIComponent(key)}/insights`;
}

/** The record's condition, when it has one (tasks and agents). */
async function record(
  ctx: PageContext,
  kind: GroupKind,
  key: string,
): Promise<{ name: string; condition?: string } | undefined> {
  try {
    return await ctx.client[kind.segment].get(key);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The current condition's clauses, as the verdicts name them. */
function clausesOf(condition: string): ConditionClause[] {
  return conditionClauses(compileCondition(parseCondition(condition)));
}

function clauseRows(kind: GroupKind, key: string, group: InsightGroup, condition: string): ClauseRow[] {
  const clauses = clausesOf(condition);
  // failed_clause lists FAILED outcomes only, the ones the row's count counts (of this group, with task_key).
  const outcomes = `${BASE}/outcomes?${kind.filter}=${encodeURIComponent(key)}&failed_clause=`;
  return group.failing_clauses.map((clause) => ({
    clause,
    marked: markClause(condition, clauses, clause.clause),
    href: `${outcomes}${encodeURIComponent(clause.clause)}`,
  }));
}

function periodLinks(kind: GroupKind, key: string, current: Period): Html {
  return html`<nav class="periods" aria-label="Period">${PERIODS.map(
    (p) =>
      html`<a href="${insightsPath(kind.segment, key)}?period=${p.name}"${p === current ? html` aria-current="page"` : ""}>${p.label}</a>`,
  )}</nav>`;
}

async function groupPage(ctx: PageContext, kind: GroupKind): Promise<WebResponse> {
  const key = ctx.params.key!;
  const found = await record(ctx, kind, key);
  const listPath = `${BASE}/${kind.segment}`;
  if (!found) {
    const words = html`<p>There is no ${kind.singular} ${key}.</p><p><a href="${listPath}">All ${kind.segment}</a></p>`;
    return page(404, layout(ctx.viewer, `/${kind.segment}`, `No such ${kind.singular}`, words));
  }
  const period = periodOf(ctx.req.query);
  const group = groupOf(await fetchInsights(ctx, kind.groupBy, period, key), key);
  const size = period.bucket;
  const charges = kind.groupBy === "customer" || currenciesOf(group.series).length > 0;
  const content = html`<p>${found.name} · <a href="${listPath}/${encodeURIComponent(key)}/edit">Edit</a> · <a href="${BASE}/outcomes?${kind.filter}=${encodeURIComponent(key)}">Outcomes</a></p>
${periodLinks(kind, key, period)}
${totalCards(group.totals)}
<div class="chart-grid">
<section><h2>Confirmed and failed</h2>${outcomeBars("outcomes", group.series, size)}</section>
<section><h2>Confirmation rate</h2>${rateLine("rate", group.series, size)}</section>
${kind.groupBy === "customer" ? "" : html`<section><h2>Time to verdict</h2>${timeToVerdictLines("time-to-verdict", group.series, size)}</section>`}
</div>
${charges ? html`<h2>Charges</h2>${revenueBars("charges", group.series, size)}` : ""}
${
  found.condition === undefined
    ? ""
    : html`<h2>Why outcomes fail</h2>
<p class="condition" data-testid="group-condition">${found.condition}</p>
${failingClausesTable(clauseRows(kind, key, group, found.condition), group.totals.failed)}`
}`;
  const title = `${kind.singular.charAt(0).toUpperCase()}${kind.singular.slice(1)} ${key}`;
  return page(200, layout(ctx.viewer, `/${kind.segment}`, title, content, { charts: true }));
}

export const insightRoutes: DashboardRoute[] = KINDS.map((kind) => ({
  method: "GET",
  path: `/${kind.segment}/:key/insights`,
  handle: (ctx: PageContext) => groupPage(ctx, kind),
}));
