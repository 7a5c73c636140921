// The home page: the numbers a person checks first. Outcomes created today by status and dead letters
// waiting; then the last 30 days: confirmed and failed per day, the confirmation rate with its volume, time
// to verdict per task and agent, revenue per currency, dead letters; and the events received per minute.
import type { MinuteCount } from "../../stores/ingest-counts.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { ALL_GROUPS, DEFAULT_PERIOD, fetchInsights } from "../insights/fetch.js";
import {
  deadLetterBars,
  outcomeBars,
  rateLine,
  revenueBars,
  timeToVerdictTable,
  totalCards,
} from "../insights/sections.js";
import { emptySeries, MIN_DECIDED_FOR_TREND, rateOf, sumSeries } from "../insights/view.js";
import { BASE, layout } from "../layout.js";
import { page } from "../web.js";
import { insightsPath } from "./insights.js";

/** Minutes the ingest chart shows before the current one. */
export const CHART_MINUTES = 30;
/** Statuses of today's outcomes are read from at most this many snapshots: the page stays quick. */
export const TALLY_READ_LIMIT = 5000;

const DAY_MS = 86_400_000;

function card(label: string, value: number, testId: string, href: string): Html {
  return html`<a class="card" href="${href}" data-testid="${testId}"><span class="number">${value}</span>${label}</a>`;
}

function chart(counts: readonly MinuteCount[]): Html {
  const width = 620;
  const height = 120;
  const gap = 2;
  const bar = width / counts.length;
  const peak = Math.max(1, ...counts.map((c) => c.events));
  const total = counts.reduce((sum, c) => sum + c.events, 0);
  const bars = counts.map((c, i) => {
    const h = Math.round((c.events / peak) * (height - 20));
    const time = new Date(c.at).toISOString().slice(11, 16);
    return html`<rect x="${(i * bar).toFixed(1)}" y="${height - h}" width="${(bar - gap).toFixed(1)}" height="${h}"><title>${time} UTC: ${c.events} events</title></rect>`;
  });
  return html`<figure>
<svg class="chart ingest" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="ingest-caption">${bars}</svg>
<figcaption id="ingest-caption" data-testid="ingest-summary">${total} events received in the last ${CHART_MINUTES} minutes; busiest minute ${peak === 1 && total === 0 ? 0 : peak}.</figcaption>
</figure>`;
}

/** The last 30 days of the whole account: task and agent groups added up, revenue from customer groups. */
async function overview(ctx: PageContext): Promise<Html> {
  const period = DEFAULT_PERIOD;
  const [tasks, agents, customers] = await Promise.all([
    fetchInsights(ctx, "task", period),
    fetchInsights(ctx, "agent", period),
    fetchInsights(ctx, "customer", period),
  ]);
  const days = emptySeries(tasks.from, tasks.to, period.bucket);
  // An outcome belongs to a task (Variant A) or an agent (Variant B), never both: the sum counts each once.
  const outcomes = sumSeries([...tasks.groups, ...agents.groups], days);
  const revenue = sumSeries(customers.groups, days);
  const sum = (pick: (p: (typeof outcomes)[number]) => number): number =>
    outcomes.reduce((total, p) => total + pick(p), 0);
  const totals = { opened: sum((p) => p.opened), confirmed: sum((p) => p.confirmed), failed: sum((p) => p.failed) };
  const timeTables = [
    tasks.groups.length > 0 ? timeToVerdictTable(tasks.groups, "task", (key) => insightsPath("tasks", key)) : "",
    agents.groups.length > 0 ? timeToVerdictTable(agents.groups, "agent", (key) => insightsPath("agents", key)) : "",
  ];
  const cut = [tasks, agents, customers].some((answer) => answer.groups_total > answer.groups.length);
  return html`<h2>Last 30 days</h2>
${cut ? html`<p class="hint">Sums of the ${ALL_GROUPS} busiest tasks, agents and customers; each page of one has its own exact numbers.</p>` : ""}
${totalCards({ ...totals, confirmation_rate: totals.confirmed + totals.failed < MIN_DECIDED_FOR_TREND ? null : rateOf(totals.confirmed, totals.failed) })}
<div class="chart-grid">
<section><h3>Confirmed and failed per day</h3>${outcomeBars("overview-outcomes", outcomes, period.bucket)}</section>
<section><h3>Confirmation rate</h3>${rateLine("overview-rate", outcomes, period.bucket)}</section>
<section><h3>Revenue</h3>${revenueBars("overview-revenue", revenue, period.bucket)}</section>
<section><h3>Dead letters</h3>${deadLetterBars("overview-dead-letters", outcomes, period.bucket)}</section>
</div>
<h3>Time to verdict</h3>
${tasks.groups.length + agents.groups.length === 0 ? html`<p>No verdicts in the last 30 days.</p>` : timeTables}`;
}

export const homeRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: "/",
    async handle(ctx) {
      const { accountId } = ctx.session;
      const now = ctx.services.clock();
      const midnight = Math.floor(now / DAY_MS) * DAY_MS;
      const { outcomes, deadLetters, ingest } = ctx.services.stores;
      const [tally, waiting, perMinute, lastDays] = await Promise.all([
        outcomes.tallyCreatedSince(accountId, midnight, TALLY_READ_LIMIT),
        deadLetters.count(accountId),
        ingest.perMinute(accountId, now, CHART_MINUTES),
        overview(ctx),
      ]);
      const content = html`<h2>Outcomes created today (UTC)</h2>
<div class="cards">
  ${card("open", tally.OPEN, "home-open", `${BASE}/outcomes?status=OPEN`)}
  ${card("confirmed", tally.CONFIRMED, "home-confirmed", `${BASE}/outcomes?status=CONFIRMED`)}
  ${card("failed", tally.FAILED, "home-failed", `${BASE}/outcomes?status=FAILED`)}
  ${card("dead letters waiting", waiting, "home-dead-letters", `${BASE}/dead-letters`)}
</div>
${tally.read < tally.created ? html`<p class="hint">Statuses of ${tally.read} of the ${tally.created} outcomes created today.</p>` : ""}
${lastDays}
<h2>Events received per minute</h2>
${chart(perMinute)}`;
      return page(200, layout(ctx.viewer, "", "Home", content, { charts: true }));
    },
  },
];
