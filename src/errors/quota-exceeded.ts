// The QUOTA_EXCEEDED answer: which per-account quota is full and its limit, in the body and the message.
import type { QuotaName } from "../config/quotas.js";
import { ApiError } from "./api-error.js";

/** A count quota (what the account stores): 403, since retrying changes nothing until something is deleted. */
export function quotaExceeded(name: QuotaName, limit: number, what: string): ApiError {
  return new ApiError("QUOTA_EXCEEDED", `the account has reached its quota of ${limit} ${what}`, undefined, {
    quota: { name, limit },
  });
}

/** The event rate: 429 with Retry-After, since the bucket refills. */
export function rateExceeded(limit: number, retryAfterSeconds: number): ApiError {
  return new ApiError(
    "QUOTA_EXCEEDED",
    `the account sends more than its quota of ${limit} events per second; retry after ${retryAfterSeconds} s`,
    undefined,
    {
      status: 429,
      retryAfterSeconds,
      quota: { name: "events_per_second", limit },
    },
  );
}

/** Costly reads: 429 with Retry-After, since a slot frees as soon as one of the account's reads answers. */
export function readsExceeded(limit: number): ApiError {
  return new ApiError(
    "QUOTA_EXCEEDED",
    `the account has ${limit} insight reads running and more waiting; retry after 1 s`,
    undefined,
    { status: 429, retryAfterSeconds: 1, quota: { name: "insight_reads", limit } },
  );
}
