// How long to wait before a retry: exponential backoff with full jitter, never shorter than `Retry-After`
// (read by src/http-headers/retry-after.ts).
import type { RetryOptions } from "./options.js";

/**
 * The wait before attempt `attempt + 1`, after `attempt` failed sends (1 or more). Full jitter (a uniform
 * draw below the exponential cap) spreads a fleet's retries, so clients refused together do not return
 * together; the service's `Retry-After` is a floor, since it knows when it expects to have room.
 */
export function retryDelayMs(
  attempt: number,
  retry: RetryOptions,
  retryAfterMs = 0,
  random: () => number = Math.random,
): number {
  const cap = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** Math.min(attempt - 1, 52));
  return Math.max(random() * cap, retryAfterMs);
}
