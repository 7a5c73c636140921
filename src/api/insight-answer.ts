// The body of a checked GET /v1/insights: the account's rollups read, added up and written as JSON bytes.
// The route hands it to an InsightReader, which answers it off the ingress's event loop (app/insight-thread.ts).
import { ApiError } from "../errors/api-error.js";
import type { InsightDimension } from "../outcomes/insight-rollup.js";
import type { InsightStore } from "../stores/insight-store.js";
import { insightsJson, type InsightsHead } from "./insight-json.js";
import { InsightTally } from "./insight-series.js";

/** A checked GET /v1/insights as plain data: it is copied to the thread that answers it. */
export interface InsightRead {
  accountId: string;
  groupBy: InsightDimension;
  key: string | undefined;
  /** Each bucket's start, then where the last one ends. */
  starts: number[];
  end: number;
  perBucket: boolean;
  limit: number;
  head: Omit<InsightsHead, "groups_total">;
}

/** Answers reads with the JSON body; rejects with ApiError for answers in the spec's error shape. */
export interface InsightReader {
  answer(read: InsightRead): Promise<Buffer>;
}

export async function answerInsights(store: InsightStore, read: InsightRead): Promise<Buffer> {
  const tally = new InsightTally(read.groupBy, read.key, { starts: read.starts, end: read.end }, read.perBucket);
  await store.read(read.accountId, read.starts[0]!, read.end, tally);
  const { groups, total } = tally.result(read.limit);
  return insightsJson({ ...read.head, groups_total: total }, groups, read.starts);
}

/** The reader could not answer (its thread stopped or died): a 503 to retry, as when Redis is down. */
export function insightReaderLost(cause: unknown): ApiError {
  return new ApiError("SERVICE_UNAVAILABLE", "the insight reader stopped; retry shortly", undefined, {
    cause,
    retryAfterSeconds: 1,
  });
}
