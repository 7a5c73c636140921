// GET /v1/insights: time series per task, agent or customer from the hourly rollups (docs/insights.md).
import typia, { type tags } from "typia";
import { ApiError } from "../../errors/api-error.js";
import type { AccountReadSlots } from "../account-read-slots.js";
import { INSTANT_RULE, parseInstant } from "../../ingress/instant.js";
import type { Route } from "../../ingress/router.js";
import { HOUR_MS } from "../../outcomes/insight-rollup.js";
import { bucketStarts, knownZone, MAX_BUCKETS, type BucketSize } from "../insight-buckets.js";
import type { InsightRead, InsightReader } from "../insight-answer.js";
import type { InsightGroup } from "../insight-series.js";
import { validBody } from "../request-checks.js";

/** The query of GET /v1/insights, as strings (typia checks it whole: an unknown parameter is refused too). */
export interface InsightsQuery {
  group_by: "task" | "agent" | "customer";
  key?: string & tags.MinLength<1> & tags.MaxLength<512>;
  /** RFC 3339; default `to` minus 24 hours, 30 days or 12 weeks (by bucket). */
  from?: string;
  /** RFC 3339, exclusive; default now. */
  to?: string;
  bucket?: "hour" | "day" | "week";
  /** IANA zone where days and weeks start; default UTC. */
  tz?: string & tags.MinLength<1> & tags.MaxLength<64>;
  /** Most groups answered (busiest first), 1..1000; default 100. */
  limit?: string & tags.Pattern<"^[1-9][0-9]{0,3}$">;
  /** `series`: every point also carries its time to verdict (p50, p90); off by default, it adds a third to a large answer. */
  percentiles?: "series";
}

/** The body of GET /v1/insights. */
export interface InsightsView {
  bucket: BucketSize;
  /** Start of the first bucket (the requested `from`, down to its bucket's start). */
  from: string;
  /** End of the last bucket (exclusive). */
  to: string;
  tz: string;
  /** Groups with rollups in the range, of which `groups` holds the `limit` busiest. */
  groups_total: number;
  groups: InsightGroup[];
}

const validateQuery = typia.createValidateEquals<InsightsQuery>();

const DEFAULT_SPAN_MS: Record<BucketSize, number> = {
  hour: 24 * HOUR_MS,
  day: 30 * 24 * HOUR_MS,
  week: 12 * 7 * 24 * HOUR_MS,
};
const DEFAULT_LIMIT = 100;

function invalid(path: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", `${path} ${message}`, [{ path, message }]);
}

function instant(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseInstant(text);
  if (ms === undefined) throw invalid(name, `must be ${INSTANT_RULE}`);
  return ms;
}

/** The checked request: the range as bucket starts and the end of the last. */
function parseRequest(
  raw: URLSearchParams,
  now: number,
): { query: InsightsQuery; bucket: BucketSize; tz: string; starts: number[]; end: number } {
  const entries: Record<string, string> = {};
  for (const [name, value] of raw) {
    if (name in entries) throw invalid(name, "must be given once");
    entries[name] = value;
  }
  const query = validBody(validateQuery(entries));
  const bucket = query.bucket ?? "day";
  const tz = query.tz ?? "UTC";
  if (!knownZone(tz)) throw invalid("tz", "must be an IANA time zone (e.g. Europe/Berlin)");
  const to = instant(query.to, "to", now);
  const from = instant(query.from, "from", to - DEFAULT_SPAN_MS[bucket]);
  if (from >= to) throw invalid("from", "must be before to");
  const range = bucketStarts(bucket, from, to, tz);
  if (!range) throw invalid("to", `must be at most ${MAX_BUCKETS} ${bucket}s after from`);
  return { query, bucket, tz, starts: range.starts, end: range.end };
}

export function insightRoutes(reader: InsightReader, slots: AccountReadSlots, clock: () => number): Route[] {
  return [
    {
      method: "GET",
      path: "/v1/insights",
      async handler(req) {
        const { query, bucket, tz, starts, end } = parseRequest(req.query, clock());
        const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
        if (limit > 1000) throw invalid("limit", "must be from 1 to 1000");
        const read: InsightRead = {
          accountId: req.accountId,
          groupBy: query.group_by,
          key: query.key,
          starts,
          end,
          perBucket: query.percentiles === "series",
          limit,
          head: { bucket, from: new Date(starts[0]!).toISOString(), to: new Date(end).toISOString(), tz },
        };
        return { status: 200, json: await slots.run(req.accountId, () => reader.answer(read)) };
      },
    },
  ];
}
