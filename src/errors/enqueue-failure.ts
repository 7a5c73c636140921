// The one mapping from an enqueue that did not succeed to its HTTP error (POST /v1/events and a DLQ replay).
import { ApiError } from "./api-error.js";

/** Both failures are worth retrying soon: the queue refuses only while Redis is full or unreachable. */
const RETRY_AFTER_SECONDS = 1;

/**
 * `rejected`: the event is certainly not in the queue. `unconfirmed`: it may or may not be; retrying is
 * safe only when the retry cannot apply twice, which for an event means the same idempotency_key (a replay
 * claims its dead letter's delivery, so it is always safe).
 */
export function enqueueFailure(result: "rejected" | "unconfirmed", retrying: "event" | "replay"): ApiError {
  const options = { retryAfterSeconds: RETRY_AFTER_SECONDS };
  if (result === "rejected")
    return new ApiError(
      "QUEUE_REJECTED",
      "the queue did not accept the event; it was not enqueued, retry later",
      undefined,
      options,
    );
  const advice =
    retrying === "event" ? "retry with the same idempotency_key to be safe" : "retrying the replay is safe";
  return new ApiError("QUEUE_UNCONFIRMED", `the event could not be confirmed enqueued; ${advice}`, undefined, options);
}
