// Asking GET /v1/insights for a period the pages offer: the last 24 hours by hour, 30 days by day, or 12
// weeks by week, each ending at the end of the current bucket so today's numbers are in.
import type { PageContext } from "../context.js";
import { emptyGroup, emptySeries, type BucketSize, type InsightGroup, type InsightsView } from "./view.js";

export type GroupBy = "task" | "agent" | "customer";

export interface Period {
  name: "24h" | "30d" | "12w";
  label: string;
  bucket: BucketSize;
  buckets: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const PERIODS: readonly Period[] = [
  { name: "24h", label: "Last 24 hours", bucket: "hour", buckets: 24 },
  { name: "30d", label: "Last 30 days", bucket: "day", buckets: 30 },
  { name: "12w", label: "Last 12 weeks", bucket: "week", buckets: 12 },
];

export const DEFAULT_PERIOD = PERIODS[1]!;

/** The period a query names, the default for anything else. */
export function periodOf(query: URLSearchParams): Period {
  return PERIODS.find((p) => p.name === query.get("period")) ?? DEFAULT_PERIOD;
}

/** [from, to) in UTC: `to` the end of the current hour or day, `from` the period's length before it. */
export function rangeOf(period: Period, now: number): { from: string; to: string } {
  const unit = period.bucket === "hour" ? HOUR_MS : DAY_MS;
  const to = Math.floor(now / unit) * unit + unit;
  const span =
    period.bucket === "hour"
      ? period.buckets * HOUR_MS
      : period.bucket === "day"
        ? period.buckets * DAY_MS
        : period.buckets * 7 * DAY_MS;
  return { from: new Date(to - span).toISOString(), to: new Date(to).toISOString() };
}

/** Groups the overview adds up: the API's own most, so a large fleet is summed whole (the page says when not). */
export const ALL_GROUPS = 1000;

export async function fetchInsights(
  ctx: PageContext,
  groupBy: GroupBy,
  period: Period,
  key?: string,
): Promise<InsightsView> {
  const { from, to } = rangeOf(period, ctx.services.clock());
  // One group's page draws its time to verdict per bucket; the overview adds groups up, and percentiles do not add.
  const one = key !== undefined;
  return ctx.client.insights.get({
    group_by: groupBy,
    key,
    from,
    to,
    bucket: period.bucket,
    limit: one ? undefined : ALL_GROUPS,
    percentiles: one ? "series" : undefined,
  });
}

/** The answer's group for `key`, or one of zeros over the answer's buckets when it had nothing. */
export function groupOf(answer: InsightsView, key: string): InsightGroup {
  return (
    answer.groups.find((g) => g.key === key) ?? emptyGroup(key, emptySeries(answer.from, answer.to, answer.bucket))
  );
}
