// Adds hourly rollups up into the series, totals and failing clauses of GET /v1/insights.
import {
  fieldOf,
  HOUR_MS,
  parseField,
  parseGroupField,
  TEXTS_HOUR,
  timeToVerdictBoundsMs,
  type InsightDimension,
  type RollupDay,
  type RollupHour,
} from "../outcomes/insight-rollup.js";
import type { RollupSink } from "../stores/insight-store.js";
import { BytesMap } from "./bytes-map.js";
import { GroupDayCursor } from "./group-day-cursor.js";
import { bucketIndex } from "./insight-buckets.js";
import { GroupSums } from "./insight-sums.js";

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

export function percentiles(histogram: Float64Array): { p50: number | null; p90: number | null } {
  return { p50: quantile(histogram, 0.5), p90: quantile(histogram, 0.9) };
}

/** A group's totals over the whole range. */
export function totalsOf(sums: GroupSums): InsightTotals {
  const confirmed = sum(sums.confirmed);
  const failed = sum(sums.failed);
  const decided = confirmed + failed;
  const charges: Record<string, { count: number; amount: number }> = {};
  for (const [currency, amounts] of sums.charges)
    charges[currency] = { count: sums.chargeCounts.get(currency) ?? 0, amount: sum(amounts) };
  return {
    opened: sum(sums.opened),
    confirmed,
    failed,
    decided,
    confirmation_rate: decided >= MIN_DECIDED_FOR_RATE ? confirmed / decided : null,
    verdicts_by_cause: { ...sums.causes },
    dead_letters: Object.fromEntries(sums.deadLetterCodes),
    charges,
    time_to_verdict_ms: percentiles(sums.histogram),
  };
}

/** The clauses false at FAILED verdicts, most often first, then by id. */
export function failingClauses(sums: GroupSums): InsightClause[] {
  const failing = [...sums.clauses]
    .filter(([, clause]) => clause.count > 0)
    .map(([clause, { text, count }]) => ({ clause, text, count }));
  failing.sort((a, b) => b.count - a.count || (a.clause < b.clause ? -1 : a.clause > b.clause ? 1 : 0));
  return failing;
}

/** Finds a group's sums by the text of a field, parsing each distinct field once per answer. */
class GroupFinder {
  readonly byKey = new Map<string, GroupSums>();
  private readonly letter: string;
  private readonly flat = new Map<string, { sums: GroupSums; metric: string } | null>();
  private readonly grouped = new BytesMap<GroupSums | null>();

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

  /** A day hash's field (groupFieldOf) as Redis sent it: its group's sums, or null when not counted here. */
  ofGroup(field: Uint8Array): GroupSums | null {
    let target = this.grouped.get(field);
    if (target === undefined) {
      const text = Buffer.from(field.buffer, field.byteOffset, field.byteLength).toString();
      const parsed = text[0] === this.letter ? parseGroupField(text) : null;
      this.grouped.add(field, (target = parsed ? this.sums(parsed.groupKey) : null));
    }
    return target;
  }
}

/** A group's sums over the range, ready to be written as JSON (insight-json.ts). */
export interface GroupResult {
  key: string;
  sums: GroupSums;
}

/**
 * Adds up the groups of one dimension (or the one `key`) as the rollups are read, each with a point per
 * bucket (empty ones as zeros, each with its time to verdict when `perBucket`).
 */
export class InsightTally implements RollupSink {
  private readonly finder: GroupFinder;
  private readonly starts: readonly number[];
  private readonly end: number;
  /** The bucket of each hour of the day being added. */
  private readonly hourBuckets: number[] = [];
  private readonly cursor = new GroupDayCursor();

  constructor(
    dimension: InsightDimension,
    key: string | undefined,
    range: { starts: readonly number[]; end: number },
    perBucket = false,
  ) {
    this.starts = range.starts;
    this.end = range.end;
    this.finder = new GroupFinder(dimension, key, range.starts.length, perBucket);
  }

  private bucketOf(hour: number): number {
    return hour < this.end ? bucketIndex(this.starts, hour) : -1;
  }

  /** Archived rows: an hour each, its counters as flat fields. */
  hours(hours: readonly RollupHour[]): void {
    for (const { hour, fields } of hours) {
      const bucket = this.bucketOf(hour);
      if (bucket < 0) continue;
      for (let i = 0; i < fields.length; i += 2) {
        const target = this.finder.ofFlat(fields[i] as string);
        if (target) target.sums.add(bucket, target.metric, fields[i + 1]!);
      }
    }
  }

  /** Days' hashes from Redis: each group's day holds triples of hour, metric and count, walked in place. */
  days(days: readonly RollupDay[]): void {
    const buckets = this.hourBuckets;
    for (const { day, fields } of days) {
      for (let hour = 0; hour < 24; hour++) buckets[hour] = this.bucketOf(day + hour * HOUR_MS);
      for (let i = 0; i < fields.length; i += 2) {
        const sums = this.finder.ofGroup(fields[i]!);
        if (!sums) continue;
        const cursor = this.cursor.wrap(fields[i + 1]!);
        for (let cells = cursor.arrayLength() / 3; cells > 0; cells--) {
          const hour = cursor.number();
          // A clause's text is the day's: it names the clause wherever it counted.
          sums.addCell(hour === TEXTS_HOUR ? 0 : buckets[hour]!, cursor);
        }
      }
    }
  }

  /** The groups busiest first (opened plus decided), then by key; at most `limit`, with how many there were. */
  result(limit: number): { groups: GroupResult[]; total: number } {
    const volume = (sums: GroupSums): number => sum(sums.opened) + sum(sums.confirmed) + sum(sums.failed);
    const ranked = [...this.finder.byKey].map(([groupKey, sums]) => ({ groupKey, sums, volume: volume(sums) }));
    ranked.sort((a, b) => b.volume - a.volume || (a.groupKey < b.groupKey ? -1 : a.groupKey > b.groupKey ? 1 : 0));
    return {
      groups: ranked.slice(0, limit).map(({ groupKey, sums }) => ({ key: groupKey, sums })),
      total: ranked.length,
    };
  }
}
