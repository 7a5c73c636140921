// How each event of a sent batch fares, read from the service's answer: a 202 names the items it did not
// take, a refused request blames some items or none. Each event gets a decision; EventSender acts on them.
import { VerdictError } from "./verdict-error.js";
import type { PendingEvent } from "./ordering-queue.js";
import type { BatchAccepted, ErrorDetail } from "./wire-types.js";

/** Accepted, sent again after a backoff, after the rate quota's wait, at once, or rejected with the error. */
export type Decision = "accept" | "retry" | "throttle" | "resend" | VerdictError;

export type Decide = (event: PendingEvent, index: number) => Decision;

/** What a 202's failed items came to, counted as they are decided, for `onError`. */
export interface AcceptedTally {
  rejected: number;
  unconfirmed: number;
  givenUp: number;
  rateLimited: number;
}

const ITEM_PATH = /^events\[(\d+)\]/;

/**
 * A 202: items not in `failed` are in; failed ones (and, by the cascade rule, their outcome's later ones) go
 * again. Items refused for the account's rate wait like after a 429, and never count as attempts: the
 * service took none of them and asked for a slower pace, which a client that keeps its buffer absorbs.
 */
export function decideAccepted(answer: BatchAccepted, maxAttempts: number): { decide: Decide; tally: AcceptedTally } {
  const reasons = new Map<number, string>();
  for (const { index, reason } of answer.failed) reasons.set(index, reason);
  const tally = { rejected: 0, unconfirmed: 0, givenUp: 0, rateLimited: 0 };
  const decide: Decide = (event, index) => {
    const reason = reasons.get(index);
    if (reason === undefined) return "accept";
    if (reason === "rate_limited") {
      tally.rateLimited++;
      event.attempts--;
      return "throttle";
    }
    if (reason === "unconfirmed") tally.unconfirmed++;
    else tally.rejected++;
    if (event.attempts < maxAttempts) return "retry";
    tally.givenUp++;
    const code = reason === "unconfirmed" ? "EVENT_UNCONFIRMED" : "EVENT_REJECTED";
    return new VerdictError(
      202,
      code,
      `the service answered ${reason} for this event on each of ${event.attempts} attempts`,
    );
  };
  return { decide, tally };
}

/**
 * The whole request failed: resend on a retryable answer, reject what the service refused otherwise;
 * `willRetry` says whether any of the batch's `count` events goes again.
 */
export function decideRefused(
  error: VerdictError,
  maxAttempts: number,
  count: number,
): { decide: Decide; willRetry: boolean } {
  let blamed: Map<number, ErrorDetail[]> | undefined;
  if (error.status === 400 && error.code === "VALIDATION_ERROR") blamed = blamedItems(error.details);
  const decide: Decide = (event, index) => {
    // Refused whole for the account's rate (before the service read it): like rate_limited items.
    if (error.status === 429 && error.code === "QUOTA_EXCEEDED") {
      event.attempts--;
      return "throttle";
    }
    if (error.retryable) return event.attempts < maxAttempts ? "retry" : error;
    if (blamed === undefined) return error;
    const details = blamed.get(index);
    if (details)
      return new VerdictError(
        400,
        "VALIDATION_ERROR",
        details.map((d) => `${d.path}: ${d.message}`).join("; "),
        details,
        { requestId: error.requestId },
      );
    // Valid, but the batch was refused whole for another item: nothing was enqueued, so this send
    // does not count against the event's attempts, and it may go again at once.
    event.attempts--;
    return "resend";
  };
  return { decide, willRetry: error.retryable || (blamed !== undefined && blamed.size < count) };
}

/** The batch items a VALIDATION_ERROR points at (`events[12].action`), with their details. */
function blamedItems(details: readonly ErrorDetail[] | undefined): Map<number, ErrorDetail[]> | undefined {
  if (!details || details.length === 0) return undefined;
  const items = new Map<number, ErrorDetail[]>();
  for (const detail of details) {
    const match = ITEM_PATH.exec(detail.path);
    // A detail about the batch as a whole (say, its length) blames every item alike.
    if (!match) return undefined;
    const index = Number(match[1]);
    const list = items.get(index);
    if (list) list.push(detail);
    else items.set(index, [detail]);
  }
  return items;
}
