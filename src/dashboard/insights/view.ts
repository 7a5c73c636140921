// The GET /v1/insights answer as the dashboard reads it, and the sums the pages draw from it: several
// groups' series added bucket by bucket, rates with the counts they stand on, durations in words.
import type { Bucket } from "../charts/frame.js";
import { bucketLabel } from "../charts/frame.js";

export type BucketSize = "hour" | "day" | "week";

export interface InsightPoint {
  start: string;
  opened: number;
  confirmed: number;
  failed: number;
  forced: number;
  dead_letters: number;
  charges: Record<string, number>;
}

export interface InsightClause {
  clause: string;
  text: string;
  count: number;
}

export interface InsightGroup {
  key: string;
  series: InsightPoint[];
  totals: {
    opened: number;
    confirmed: number;
    failed: number;
    confirmation_rate: number | null;
    time_to_verdict_ms: { p50: number | null; p90: number | null };
  };
  failing_clauses: InsightClause[];
}

export interface InsightsAnswer {
  bucket: BucketSize;
  from: string;
  to: string;
  groups: InsightGroup[];
}

/** Fewer decided outcomes than this in a bucket make a point, not a trend: 2 verdicts give 0, 50 or 100%. */
export const MIN_DECIDED_FOR_TREND = 3;

/** The chart buckets of an answer, from its first group or, with no groups, from its range. */
export function bucketsOf(series: readonly InsightPoint[], size: BucketSize): Bucket[] {
  return series.map((point) => ({ start: point.start, label: bucketLabel(point.start, size) }));
}

/** Every bucket of [from, to) for an answer without groups, so an empty account still draws its days. */
export function emptySeries(from: string, to: string, size: BucketSize): InsightPoint[] {
  const step = size === "hour" ? 3_600_000 : size === "day" ? 86_400_000 : 7 * 86_400_000;
  const points: InsightPoint[] = [];
  for (let at = Date.parse(from); at < Date.parse(to); at += step) {
    points.push({ start: new Date(at).toISOString(), opened: 0, confirmed: 0, failed: 0, forced: 0, dead_letters: 0, charges: {} });
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
      for (const [currency, amount] of Object.entries(point.charges)) total.charges[currency] = (total.charges[currency] ?? 0) + amount;
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
  const units: readonly [string, number][] = [["d", 86_400_000], ["h", 3_600_000], ["min", 60_000], ["s", 1000]];
  for (const [name, size] of units) {
    if (ms >= size) {
      const n = ms / size;
      return `${n >= 10 ? Math.round(n) : Math.round(n * 10) / 10} ${name}`;
    }
  }
  return `${Math.round(ms)} ms`;
}

/** Every currency that has a charge in the series, in alphabetical order. */
export function currenciesOf(series: readonly InsightPoint[]): string[] {
  return [...new Set(series.flatMap((point) => Object.keys(point.charges)))].sort();
}
