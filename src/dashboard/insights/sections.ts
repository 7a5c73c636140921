// The insight pages' parts, pure from the API's numbers: outcome bars, the confirmation-rate line, revenue
// per currency, dead letters, the totals, time to verdict, and the "why outcomes fail" table.
import { barChart } from "../charts/bar-chart.js";
import { DURATION_STEPS_MS } from "../charts/frame.js";
import { lineChart } from "../charts/line-chart.js";
import { html, type Html } from "../html.js";
import { formatMoney } from "../money.js";
import {
  bucketsOf,
  currenciesOf,
  formatDuration,
  formatRate,
  MIN_DECIDED_FOR_TREND,
  rateOf,
  type BucketSize,
  type InsightClause,
  type InsightGroup,
  type InsightPoint,
  type InsightTotals,
} from "./view.js";

const HEADERS: Record<BucketSize, string> = { hour: "Hour", day: "Day", week: "Week from" };
const PER: Record<BucketSize, string> = { hour: "per hour", day: "per day", week: "per week" };

function total(series: readonly InsightPoint[], pick: (point: InsightPoint) => number): number {
  return series.reduce((sum, point) => sum + pick(point), 0);
}

/** Confirmed and failed stacked per bucket. */
export function outcomeBars(id: string, series: readonly InsightPoint[], size: BucketSize): Html {
  const confirmed = total(series, (p) => p.confirmed);
  const failed = total(series, (p) => p.failed);
  return barChart({
    id,
    caption: `Outcomes confirmed and failed ${PER[size]}: ${confirmed} confirmed, ${failed} failed in all.`,
    bucketHeader: HEADERS[size],
    buckets: bucketsOf(series, size),
    series: [
      { name: "confirmed", label: "Confirmed", values: series.map((p) => p.confirmed) },
      { name: "failed", label: "Failed", values: series.map((p) => p.failed) },
    ],
  });
}

/** The confirmation rate per bucket with the verdicts behind it; a thin bucket is a point, not a trend. */
export function rateLine(id: string, series: readonly InsightPoint[], size: BucketSize): Html {
  const confirmed = total(series, (p) => p.confirmed);
  const failed = total(series, (p) => p.failed);
  const overall = rateOf(confirmed, failed);
  return lineChart({
    id,
    caption: `Confirmation rate ${PER[size]} (confirmed of decided): ${overall === null ? "nothing decided yet" : `${formatRate(overall)} of ${confirmed + failed} decided`}. Hollow points stand on fewer than ${MIN_DECIDED_FOR_TREND} verdicts.`,
    bucketHeader: HEADERS[size],
    buckets: bucketsOf(series, size),
    values: series.map((p) => rateOf(p.confirmed, p.failed)),
    volumes: series.map((p) => p.confirmed + p.failed),
    minVolume: MIN_DECIDED_FOR_TREND,
    valueLabel: "Rate",
    volumeLabel: "Decided",
    format: formatRate,
    max: 1,
  });
}

/** Time to verdict per bucket: the median and the 90th percentile of the bucket's verdicts (from its histogram). */
export function timeToVerdictLines(id: string, series: readonly InsightPoint[], size: BucketSize): Html {
  const decided = series.map((p) => p.confirmed + p.failed);
  return lineChart({
    id,
    caption: `Time to verdict ${PER[size]}: the median (solid) and the 90th percentile (dashed) of the verdicts in each, as the upper bound of their histogram bucket. Hollow points stand on fewer than ${MIN_DECIDED_FOR_TREND} verdicts.`,
    bucketHeader: HEADERS[size],
    buckets: bucketsOf(series, size),
    name: "p50",
    values: series.map((p) => p.time_to_verdict_ms?.p50 ?? null),
    second: { name: "p90", label: "90th percentile", values: series.map((p) => p.time_to_verdict_ms?.p90 ?? null) },
    volumes: decided,
    minVolume: MIN_DECIDED_FOR_TREND,
    valueLabel: "Median",
    volumeLabel: "Decided",
    format: formatDuration,
    tickSteps: DURATION_STEPS_MS,
  });
}

/** One bar chart per currency: amounts of different currencies are never added or stacked. */
export function revenueBars(id: string, series: readonly InsightPoint[], size: BucketSize): Html {
  const currencies = currenciesOf(series);
  if (currencies.length === 0) return html`<p data-testid="${id}-none">No charges in this period.</p>`;
  return html`${currencies.map((currency, n) =>
    barChart({
      id: `${id}-${n}`,
      caption: `Charges in ${currency} ${PER[size]}: ${formatMoney(
        total(series, (p) => p.charges[currency] ?? 0),
        currency,
      )} in all.`,
      bucketHeader: HEADERS[size],
      buckets: bucketsOf(series, size),
      series: [{ name: "charges", label: currency, values: series.map((p) => p.charges[currency] ?? 0) }],
      format: (amount) => formatMoney(amount, currency),
    }),
  )}`;
}

export function deadLetterBars(id: string, series: readonly InsightPoint[], size: BucketSize): Html {
  return barChart({
    id,
    caption: `Dead letters ${PER[size]}: ${total(series, (p) => p.dead_letters)} in all.`,
    bucketHeader: HEADERS[size],
    buckets: bucketsOf(series, size),
    series: [{ name: "dead-letters", label: "Dead letters", values: series.map((p) => p.dead_letters) }],
  });
}

function card(label: string, value: string, testId: string, note = ""): Html {
  return html`<div class="card" data-testid="${testId}"><span class="number">${value}</span>${label}${note ? html`<span class="note">${note}</span>` : ""}</div>`;
}

/**
 * The period's counts, the rate with the verdicts it stands on, and time to verdict when the totals are one
 * group's (percentiles of several groups do not add up).
 */
export function totalCards(
  totals: Pick<InsightTotals, "opened" | "confirmed" | "failed" | "confirmation_rate"> &
    Partial<Pick<InsightTotals, "time_to_verdict_ms">>,
): Html {
  const decided = totals.confirmed + totals.failed;
  const time = totals.time_to_verdict_ms;
  return html`<div class="cards">
  ${card("opened", String(totals.opened), "total-opened")}
  ${card("confirmed", String(totals.confirmed), "total-confirmed")}
  ${card("failed", String(totals.failed), "total-failed")}
  ${card("confirmation rate", totals.confirmation_rate === null ? "–" : formatRate(totals.confirmation_rate), "total-rate", `of ${decided} decided`)}
  ${time ? card("time to verdict, median", time.p50 === null ? "–" : formatDuration(time.p50), "total-p50", time.p90 === null ? "" : `90% within ${formatDuration(time.p90)}`) : ""}
</div>`;
}

/** Time to verdict by group: percentiles do not add up across groups, so each group keeps its own. */
export function timeToVerdictTable(groups: readonly InsightGroup[], kind: string, link: (key: string) => string): Html {
  const decided = groups.filter((g) => g.totals.time_to_verdict_ms.p50 !== null);
  if (decided.length === 0) return html`<p>No verdicts in this period.</p>`;
  const rows = decided.map((g) => {
    const { p50, p90 } = g.totals.time_to_verdict_ms;
    return html`<tr><th scope="row"><a href="${link(g.key)}">${g.key}</a></th><td>${g.totals.confirmed + g.totals.failed}</td><td>${g.totals.confirmation_rate === null ? "–" : formatRate(g.totals.confirmation_rate)}</td><td>${p50 === null ? "–" : formatDuration(p50)}</td><td>${p90 === null ? "–" : formatDuration(p90)}</td></tr>`;
  });
  return html`<table class="numbers" aria-label="Time to verdict by ${kind}"><thead><tr><th scope="col">${kind.charAt(0).toUpperCase() + kind.slice(1)}</th><th scope="col">Decided</th><th scope="col">Confirmation rate</th><th scope="col">Median time to verdict</th><th scope="col">90th percentile</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export interface ClauseRow {
  clause: InsightClause;
  /** The condition with this clause marked, or undefined when it is from an earlier version of the condition. */
  marked: Html | undefined;
  /** Outcomes that failed on it (or, where the list cannot tell, the group's failed outcomes). */
  href: string;
}

/** "Why outcomes fail": clauses ranked as the API ranks them, each marked in the condition, each linked. */
export function failingClausesTable(rows: readonly ClauseRow[], failed: number): Html {
  if (rows.length === 0) return html`<p data-testid="no-failing-clauses">No outcome failed in this period.</p>`;
  const body = rows.map(
    ({ clause, marked, href }, i) => html`<tr data-clause="${clause.clause}" data-count="${clause.count}">
  <td>${i + 1}</td>
  <td><code class="clause-text">${clause.text}</code></td>
  <td>${clause.count}${failed > 0 ? html` <span class="note">(${Math.round((clause.count / failed) * 100)}% of failed)</span>` : ""}</td>
  <td><code class="condition-marked">${marked ?? html`<span class="note">from an earlier version of the condition</span>`}</code></td>
  <td><a href="${href}">Failed outcomes</a></td>
</tr>`,
  );
  return html`<table class="failing-clauses" aria-label="Why outcomes fail"><thead><tr><th scope="col">Rank</th><th scope="col">Clause false at the verdict</th><th scope="col">Failed outcomes</th><th scope="col">In the condition</th><th scope="col"><span class="visually-hidden">Link</span></th></tr></thead><tbody>${body}</tbody></table>
<p class="hint">Every clause false at a FAILED verdict counts, so one outcome can count under several clauses.</p>`;
}
