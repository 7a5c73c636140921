// Adds hourly rollups up into the series, totals and failing clauses of GET /v1/insights.
import { fieldOf, HOUR_MS, METRIC, parseField, parseGroupField, TEXTS_HOUR, timeToVerdictBoundsMs, type GroupDay, type InsightDimension, type RollupDay } from "../outcomes/insight-rollup.js";
import type { Rollups } from "../stores/insight-store.js";
import { bucketIndex } from "./insight-buckets.js";

export interface InsightPoint {
  start: string;
  opened: number;
  confirmed: number;
  failed: number;
  forced: number;
  dead_letters: number;
  charges: Record<string, number>;
  /** Only with `percentiles=series`: the bucket's time to verdict, as the totals' (null without verdicts). */
  time_to_verdict_ms?: { p50: number | null; p90: number | null };
}

export interface InsightTotals {
  opened: number;
  confirmed: number;
  failed: number;
  /** Verdicts (confirmed + failed): the rate's volume. */
  decided: number;
  /** confirmed / decided; null over fewer than MIN_DECIDED_FOR_RATE decided outcomes (not a trend). */
  confirmation_rate: number | null;
  /** How the verdicts came: condition locked at an event, IDLE expiry (quiescence), deadline forced. */
  verdicts_by_cause: { locked: number; idle: number; deadline: number };
  dead_letters: Record<string, number>;
  charges: Record<string, { count: number; amount: number }>;
  /** From the fixed histogram: the upper bound of the bucket holding the percentile; null with no verdicts. */
  time_to_verdict_ms: { p50: number | null; p90: number | null };
}

export interface InsightClause {
  clause: string;
  text: string;
  count: number;
}

export interface InsightGroup {
  key: string;
  series: InsightPoint[];
  totals: InsightTotals;
  failing_clauses: InsightClause[];
}

/** Fewer decided outcomes than this give no rate: two verdicts make 0%, 50% or 100%, never a trend. */
export const MIN_DECIDED_FOR_RATE = 3;

const HISTOGRAM_SIZE = timeToVerdictBoundsMs.length + 1;

class GroupSums {
  readonly opened: Float64Array;
  readonly confirmed: Float64Array;
  readonly failed: Float64Array;
  readonly forced: Float64Array;
  readonly deadLetters: Float64Array;
  readonly charges = new Map<string, Float64Array>();
  readonly chargeCounts = new Map<string, number>();
  readonly deadLetterCodes = new Map<string, number>();
  readonly histogram = new Float64Array(HISTOGRAM_SIZE);
  /** Each bucket's histogram in a row, kept only when the answer gives each point its percentiles. */
  readonly bucketHistograms: Float64Array | undefined;
  readonly causes = { locked: 0, idle: 0, deadline: 0 };
  readonly clauses = new Map<string, { text: string; count: number }>();

  constructor(
    private readonly buckets: number,
    perBucket: boolean,
  ) {
    this.bucketHistograms = perBucket ? new Float64Array(buckets * HISTOGRAM_SIZE) : undefined;
    this.opened = new Float64Array(buckets);
    this.confirmed = new Float64Array(buckets);
    this.failed = new Float64Array(buckets);
    this.forced = new Float64Array(buckets);
    this.deadLetters = new Float64Array(buckets);
  }

  add(bucket: number, metric: string, value: string | number): void {
    const n = Number(value);
    switch (metric[0]) {
      case METRIC.opened:
        this.opened[bucket]! += n;
        return;
      case METRIC.confirmed:
        this.confirmed[bucket]! += n;
        return;
      case METRIC.failed:
        this.failed[bucket]! += n;
        return;
      case METRIC.forced:
        this.forced[bucket]! += n;
        this.causes.deadline += n;
        return;
      case METRIC.locked:
        this.causes.locked += n;
        return;
      case METRIC.idle:
        this.causes.idle += n;
        return;
      case METRIC.histogram: {
        const index = Number(metric.slice(1));
        this.histogram[index]! += n;
        if (this.bucketHistograms) this.bucketHistograms[bucket * HISTOGRAM_SIZE + index]! += n;
        return;
      }
      case METRIC.chargeAmount: {
        const currency = metric.slice(1);
        let amounts = this.charges.get(currency);
        if (!amounts) this.charges.set(currency, (amounts = new Float64Array(this.buckets)));
        amounts[bucket]! += n;
        return;
      }
      case METRIC.chargeCount:
        this.chargeCounts.set(metric.slice(1), (this.chargeCounts.get(metric.slice(1)) ?? 0) + n);
        return;
      case METRIC.deadLetters:
        this.deadLetters[bucket]! += n;
        this.deadLetterCodes.set(metric.slice(1), (this.deadLetterCodes.get(metric.slice(1)) ?? 0) + n);
        return;
      case METRIC.clause: {
        const clause = this.clause(metric.slice(1));
        clause.count += n;
        return;
      }
      case METRIC.clauseText:
        this.clause(metric.slice(1)).text = String(value);
        return;
    }
  }

  private clause(id: string): { text: string; count: number } {
    let clause = this.clauses.get(id);
    if (!clause) this.clauses.set(id, (clause = { text: "", count: 0 }));
    return clause;
  }
}

function sum(values: Float64Array): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** The upper bound of the histogram bucket holding quantile q (the last bound for the open-ended bucket). */
function quantile(histogram: Float64Array, q: number): number | null {
  const total = sum(histogram);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= q * total) return timeToVerdictBoundsMs[Math.min(i, timeToVerdictBoundsMs.length - 1)]!;
  }
  return null;
}

function percentiles(histogram: Float64Array): { p50: number | null; p90: number | null } {
  return { p50: quantile(histogram, 0.5), p90: quantile(histogram, 0.9) };
}

function groupOf(key: string, sums: GroupSums, starts: readonly string[]): InsightGroup {
  const series: InsightPoint[] = starts.map((start, i) => {
    const charges: Record<string, number> = {};
    for (const [currency, amounts] of sums.charges) if (amounts[i]! !== 0) charges[currency] = amounts[i]!;
    return {
      start,
      opened: sums.opened[i]!,
      confirmed: sums.confirmed[i]!,
      failed: sums.failed[i]!,
      forced: sums.forced[i]!,
      dead_letters: sums.deadLetters[i]!,
      charges,
      ...(sums.bucketHistograms ? { time_to_verdict_ms: percentiles(sums.bucketHistograms.subarray(i * HISTOGRAM_SIZE, (i + 1) * HISTOGRAM_SIZE)) } : {}),
    };
  });
  const confirmed = sum(sums.confirmed);
  const failed = sum(sums.failed);
  const decided = confirmed + failed;
  const charges: Record<string, { count: number; amount: number }> = {};
  for (const [currency, amounts] of sums.charges) charges[currency] = { count: sums.chargeCounts.get(currency) ?? 0, amount: sum(amounts) };
  const failing = [...sums.clauses].filter(([, clause]) => clause.count > 0).map(([clause, { text, count }]) => ({ clause, text, count }));
  failing.sort((a, b) => b.count - a.count || (a.clause < b.clause ? -1 : a.clause > b.clause ? 1 : 0));
  return {
    key,
    series,
    totals: {
      opened: sum(sums.opened),
      confirmed,
      failed,
      decided,
      confirmation_rate: decided >= MIN_DECIDED_FOR_RATE ? confirmed / decided : null,
      verdicts_by_cause: { ...sums.causes },
      dead_letters: Object.fromEntries(sums.deadLetterCodes),
      charges,
      time_to_verdict_ms: percentiles(sums.histogram),
    },
    failing_clauses: failing,
  };
}

/** Finds a group's sums by the text of a field, parsing each distinct field once per answer. */
class GroupFinder {
  readonly byKey = new Map<string, GroupSums>();
  private readonly letter: string;
  private readonly flat = new Map<string, { sums: GroupSums; metric: string } | null>();
  private readonly grouped = new Map<string, GroupSums | null>();

  constructor(
    private readonly dimension: InsightDimension,
    private readonly key: string | undefined,
    private readonly buckets: number,
    private readonly perBucket: boolean,
  ) {
    this.letter = fieldOf(dimension, "", "")[0]!;
    // A key asked for is answered with zeros where it has no rollups.
    if (key !== undefined) this.byKey.set(key, new GroupSums(buckets, perBucket));
  }

  private sums(groupKey: string): GroupSums | null {
    if (this.key !== undefined && groupKey !== this.key) return null;
    let sums = this.byKey.get(groupKey);
    if (!sums) this.byKey.set(groupKey, (sums = new GroupSums(this.buckets, this.perBucket)));
    return sums;
  }

  /** An archived row's field (fieldOf): its group's sums and its metric, or null when not counted here. */
  ofFlat(field: string): { sums: GroupSums; metric: string } | null {
    let target = this.flat.get(field);
    if (target === undefined) {
      const parsed = field[0] === this.letter ? parseField(field) : null;
      const sums = parsed && parsed.dimension === this.dimension ? this.sums(parsed.groupKey) : null;
      this.flat.set(field, (target = sums && parsed ? { sums, metric: parsed.metric } : null));
    }
    return target;
  }

  /** A day hash's field (groupFieldOf): its group's sums, or null when not counted here. */
  ofGroup(field: string): GroupSums | null {
    let target = this.grouped.get(field);
    if (target === undefined) {
      const parsed = field[0] === this.letter ? parseGroupField(field) : null;
      this.grouped.set(field, (target = parsed ? this.sums(parsed.groupKey) : null));
    }
    return target;
  }
}

/** Adds the days' hashes from Redis: each group's day holds triples of hour, metric and count. */
function addDays(days: readonly RollupDay[], finder: GroupFinder, bucketOf: (hour: number) => number): void {
  const buckets: number[] = [];
  for (const { day, fields } of days) {
    for (let hour = 0; hour < 24; hour++) buckets[hour] = bucketOf(day + hour * HOUR_MS);
    for (let i = 0; i < fields.length; i += 2) {
      const sums = finder.ofGroup(fields[i] as string);
      if (!sums) continue;
      const cells = fields[i + 1] as GroupDay;
      for (let j = 0; j < cells.length; j += 3) {
        const hour = cells[j] as number;
        // A clause's text is the day's: it names the clause wherever it counted.
        const bucket = hour === TEXTS_HOUR ? 0 : buckets[hour]!;
        if (bucket >= 0) sums.add(bucket, cells[j + 1] as string, cells[j + 2]!);
      }
    }
  }
}

/**
 * The groups of one dimension (or the one `key`) in the rollups, each with a point per bucket (empty ones
 * as zeros, each with its time to verdict when `perBucket`); busiest first (opened plus decided), then by
 * key; at most `limit`, with how many there were.
 */
export function insightGroups(
  rollups: Rollups,
  dimension: InsightDimension,
  key: string | undefined,
  range: { starts: readonly number[]; end: number },
  limit: number,
  perBucket = false,
): { groups: InsightGroup[]; total: number } {
  const { starts, end } = range;
  const finder = new GroupFinder(dimension, key, starts.length, perBucket);
  const bucketOf = (hour: number): number => (hour < end ? bucketIndex(starts, hour) : -1);
  for (const { hour, fields } of rollups.hours) {
    const bucket = bucketOf(hour);
    if (bucket < 0) continue;
    for (let i = 0; i < fields.length; i += 2) {
      const target = finder.ofFlat(fields[i] as string);
      if (target) target.sums.add(bucket, target.metric, fields[i + 1]!);
    }
  }
  addDays(rollups.days, finder, bucketOf);
  const volume = (sums: GroupSums): number => sum(sums.opened) + sum(sums.confirmed) + sum(sums.failed);
  const ranked = [...finder.byKey].map(([groupKey, sums]) => ({ groupKey, sums, volume: volume(sums) }));
  ranked.sort((a, b) => b.volume - a.volume || (a.groupKey < b.groupKey ? -1 : a.groupKey > b.groupKey ? 1 : 0));
  // Formatted once for every group's series.
  const startTexts = starts.map((start) => new Date(start).toISOString());
  return { groups: ranked.slice(0, limit).map(({ groupKey, sums }) => groupOf(groupKey, sums, startTexts)), total: ranked.length };
}
