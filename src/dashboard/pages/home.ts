// The home page: the numbers a person checks first. Outcomes created today by status, dead letters
// waiting, and the events received per minute over the last half hour as a small chart.
import type { MinuteCount } from "../../stores/ingest-counts.js";
import type { DashboardRoute } from "../context.js";
import { html, type Html } from "../html.js";
import { BASE, layout } from "../layout.js";
import { page } from "../web.js";

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
<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="ingest-caption">${bars}</svg>
<figcaption id="ingest-caption" data-testid="ingest-summary">${total} events received in the last ${CHART_MINUTES} minutes; busiest minute ${peak === 1 && total === 0 ? 0 : peak}.</figcaption>
</figure>`;
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
      const [tally, waiting, perMinute] = await Promise.all([
        outcomes.tallyCreatedSince(accountId, midnight, TALLY_READ_LIMIT),
        deadLetters.count(accountId),
        ingest.perMinute(accountId, now, CHART_MINUTES),
      ]);
      const content = html`<h2>Outcomes created today (UTC)</h2>
<div class="cards">
  ${card("open", tally.OPEN, "home-open", `${BASE}/outcomes?status=OPEN`)}
  ${card("confirmed", tally.CONFIRMED, "home-confirmed", `${BASE}/outcomes?status=CONFIRMED`)}
  ${card("failed", tally.FAILED, "home-failed", `${BASE}/outcomes?status=FAILED`)}
  ${card("dead letters waiting", waiting, "home-dead-letters", `${BASE}/dead-letters`)}
</div>
${tally.read < tally.created ? html`<p class="hint">Statuses of ${tally.read} of the ${tally.created} outcomes created today.</p>` : ""}
<h2>Events received per minute</h2>
${chart(perMinute)}`;
      return page(200, layout(ctx.viewer, "", "Home", content));
    },
  },
];
