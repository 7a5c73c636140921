// POST /v1/events and POST /v1/events/batch: validate, stamp, shard and enqueue; answer only what Redis confirmed.
import { enqueueFailure } from "../../errors/enqueue-failure.js";
import { rateExceeded } from "../../errors/quota-exceeded.js";
import type { EventPipeline, SubmitResult } from "../event-pipeline.js";
import type { Route } from "../router.js";
import { parseBatch, parseEvent } from "../validate-events.js";

export const MAX_EVENT_BODY_BYTES = 256 * 1024;
export const MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024;

export interface EventRouteDeps {
  pipeline: EventPipeline;
  /** The quota's rate, named in the answer that refuses an event for it. */
  eventsPerSecond: number;
}

type Failure = Exclude<SubmitResult, "appended" | "duplicate">;

/** Seconds a refused sender waits: the bucket refills at least one event a second. */
export const RATE_RETRY_AFTER_SECONDS = 1;

/** The 202 body of POST /v1/events. */
export interface EventAccepted {
  accepted: true;
  /** True when the idempotency key matched an earlier event: this one was not enqueued again. */
  duplicate: boolean;
}

/** The 202 body of POST /v1/events/batch: every item not in `failed` was enqueued (or was a duplicate). */
export interface BatchAccepted {
  accepted: number;
  failed: { index: number; reason: Failure }[];
  duplicates: number[];
}

export function eventRoutes({ pipeline, eventsPerSecond }: EventRouteDeps): Route[] {
  /** A request refused whole for the rate before its body is read, counted as one event (a batch's size is not known). */
  const refusedForRate = (accountId: string, events?: number) =>
    pipeline.refuses(accountId, events) ? rateExceeded(eventsPerSecond, RATE_RETRY_AFTER_SECONDS) : undefined;
  return [
    {
      method: "POST",
      path: "/v1/events",
      maxBodyBytes: MAX_EVENT_BODY_BYTES,
      admit: (accountId) => refusedForRate(accountId, 1),
      async handler(req) {
        const result = await pipeline.submitOne(req.accountId, parseEvent(req.body, req), req.traceparent);
        switch (result) {
          case undefined:
            throw rateExceeded(eventsPerSecond, RATE_RETRY_AFTER_SECONDS);
          case "appended":
          case "duplicate":
            return { status: 202, body: { accepted: true, duplicate: result === "duplicate" } satisfies EventAccepted };
          default:
            throw enqueueFailure(result, "event");
        }
      },
    },
    {
      method: "POST",
      path: "/v1/events/batch",
      maxBodyBytes: MAX_BATCH_BODY_BYTES,
      // Refused whole while the account's bucket cannot hold what its last cut request asked: the items
      // are not known before the body is parsed, which is the work this spares.
      admit: (accountId) => refusedForRate(accountId),
      async handler(req) {
        const events = parseBatch(req.body, req);
        const results = await pipeline.submit(req.accountId, events, req.traceparent);
        const failed: BatchAccepted["failed"] = [];
        const duplicates: number[] = [];
        let limited = false;
        results.forEach((result, index) => {
          if (result === "rejected" || result === "unconfirmed" || result === "rate_limited")
            failed.push({ index, reason: result });
          else if (result === "duplicate") duplicates.push(index);
          if (result === "rate_limited") limited = true;
        });
        const body = { accepted: events.length - failed.length, failed, duplicates } satisfies BatchAccepted;
        return limited
          ? { status: 202, body, headers: { "Retry-After": String(RATE_RETRY_AFTER_SECONDS) } }
          : { status: 202, body };
      },
    },
  ];
}
