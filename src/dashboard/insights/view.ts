// The GET /v1/insights answer as the dashboard reads it, and the sums the pages draw from it: several
// groups' series added bucket by bucket, rates with the counts they stand on, durations in words.
import type { BucketSize } from "../../api/insight-buckets.js";
import {
  MIN_DECIDED_FOR_RATE,
  type InsightGroup,
  type InsightPoint,
  type InsightTotals,
} from "../../api/insight-series.js";
import type { Bucket } from "../charts/frame.js";
import { bucketLabel } from "../charts/frame.js";

export type { BucketSize } from "../../api/insight-buckets.js";
export type { InsightClause, InsightGroup, InsightPoint, InsightTotals } from "../../api/insight-series.js";
export type { InsightsView } from "../../api/routes/insights.js";

/** Fewer decided outcomes than this in a bucket make a point, not a trend, as in the API's totals. */
export const MIN_DECIDED_FOR_TREND = MIN_DECIDED_FOR_RATE;

/** The chart buckets of an answer, from its first group or, with no groups, from its range. */
export function bucketsOf(series: readonly InsightPoint[], size: BucketSize): Bucket[] {
  return series.map((point) => ({ start: point.start, label: bucketLabel(point.start, size) }));
}

/** Every bucket of [from, to) for an answer without groups, so an empty account still draws its days. */
export function emptySeries(from: string, to: string, size: BucketSize): InsightPoint[] {
  const step = size === "hour" ? 3_600_000 : size === "day" ? 86_400_000 : 7 * 86_400_000;
  const points: InsightPoint[] = [];
  for (let at = Date.parse(from); at < Date.parse(to); at += step) {
    points.push({
      start: new Date(at).toISOString(),
      opened: 0,
      confirmed: 0,
      failed: 0,
      forced: 0,
      dead_letters: 0,
      charges: {},
    });
  }
  return points;
}

/** The groups' series added bucket by bucket (all groups of one answer share its buckets). */
export function sumSeries(groups: readonly InsightGroup[], fallback: readonly InsightPoint[]): InsightPoint[] {
  return fallback.map((empty, i) => {
    const total: InsightPoint = { ...empty, charges: {} };
    for (const group of groups) {
      const point = group.series[i];
      if (!point) continue;
      total.opened += point.opened;
      total.confirmed += point.confirmed;
      total.failed += point.failed;
      total.forced += point.forced;
      total.dead_letters += point.dead_letters;
      for (const [currency, amount] of Object.entries(point.charges))
        total.charges[currency] = (total.charges[currency] ?? 0) + amount;
    }
    return total;
  });
}

/** Confirmed over decided, with the decided count; null where nothing was decided. */
export function rateOf(confirmed: number, failed: number): number | null {
  const decided = confirmed + failed;
  return decided === 0 ? null : confirmed / decided;
}

export function formatRate(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

/** A duration the way a person says it: 850 ms, 4.2 s, 12 min, 3.5 h, 2.1 d. */
export function formatDuration(ms: number): string {
  const units: readonly [string, number][] = [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["min", 60_000],
    ["s", 1000],
  ];
  for (const [name, size] of units) {
    if (ms >= size) {
      const n = ms / size;
      return `${n >= 10 ? Math.round(n) : Math.round(n * 10) / 10} ${name}`;
    }
  }
  return `${Math.round(ms)} ms`;
}

/** The totals of a group with nothing in the period. */
export function emptyTotals(): InsightTotals {
  return {
    opened: 0,
    confirmed: 0,
    failed: 0,
    decided: 0,
    confirmation_rate: null,
    verdicts_by_cause: { locked: 0, idle: 0, deadline: 0 },
    dead_letters: {},
    charges: {},
    time_to_verdict_ms: { p50: null, p90: null },
  };
}

/** A group of zeros over the answer's buckets. */
export function emptyGroup(key: string, series: InsightPoint[]): InsightGroup {
  return { key, series, totals: emptyTotals(), failing_clauses: [] };
}

/** Every currency that has a charge in the series, in alphabetical order. */
export function currenciesOf(series: readonly InsightPoint[]): string[] {
  return [...new Set(series.flatMap((point) => Object.keys(point.charges)))].sort();
}
