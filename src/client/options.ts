// The client's options: one interface with a documented default per field, one frozen defaults object.
import type { VerdictError } from "./verdict-error.js";

export interface RetryOptions {
  /** Sends of one event before it is given up (its `track` promise rejects). @default 10 */
  maxAttempts: number;
  /** The first retry waits up to this long (full jitter: a uniform draw from 0 to the cap). @default 50 */
  baseDelayMs: number;
  /** The exponential cap never grows past this; a longer `Retry-After` still wins. @default 5000 */
  maxDelayMs: number;
}

/** What `onError` is told beside the error. */
export interface ErrorContext {
  /** Events the failed request (or answer item) carried. */
  events: number;
  /** True when the client sends them again; false when their `track` promises reject. */
  willRetry: boolean;
}

export interface VerdictClientOptions {
  /** The service's address, e.g. `http://localhost:8080` (the client adds `/v1/...`). */
  baseUrl: string;
  /** The account's API token, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Most events per `POST /v1/events/batch` (the service takes 1 to 500). @default 500 */
  maxBatchSize?: number | undefined;
  /** How long a partial batch may wait for more events before it is sent. @default 20 */
  flushIntervalMs?: number | undefined;
  /** Events tracked but not yet settled; past it `track` waits for room (backpressure). @default 100000 */
  maxBufferedEvents?: number | undefined;
  /** Batch requests in flight at once. @default 8 */
  maxInFlight?: number | undefined;
  /** Retries of `unconfirmed`, 408, 429, 5xx, timeouts and network errors. */
  retry?: Partial<RetryOptions> | undefined;
  /**
   * `"auto"` gives every event without an `idempotency_key` a fresh UUID v7 before its first send, so a
   * resend after an ambiguous answer cannot apply twice; `"off"` sends events as they are (a resend of an
   * event without a key may then apply twice). @default "auto"
   */
  idempotency?: "auto" | "off" | undefined;
  /** A request not answered within this is abandoned and, for events, retried. @default 10000 */
  timeoutMs?: number | undefined;
  /** The `fetch` to use (a proxy-aware one, a test double). @default globalThis.fetch */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Told about every failed send, retried or not: a fleet's place to log without awaiting each `track`.
   * What it throws is ignored: a logging callback must not stop delivery.
   */
  onError?: ((error: VerdictError, context: ErrorContext) => void) | undefined;
}

export interface ResolvedOptions {
  baseUrl: string;
  token: string;
  maxBatchSize: number;
  flushIntervalMs: number;
  maxBufferedEvents: number;
  maxInFlight: number;
  retry: RetryOptions;
  idempotency: "auto" | "off";
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
  onError: ((error: VerdictError, context: ErrorContext) => void) | undefined;
}

export const DEFAULT_CLIENT_OPTIONS = Object.freeze({
  maxBatchSize: 500,
  flushIntervalMs: 20,
  maxBufferedEvents: 100_000,
  maxInFlight: 8,
  retry: Object.freeze({ maxAttempts: 10, baseDelayMs: 50, maxDelayMs: 5_000 }),
  idempotency: "auto",
  timeoutMs: 10_000,
} as const);

/** Most events the service takes in one batch request. */
export const MAX_BATCH_EVENTS = 500;

function positiveInteger(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new RangeError(`${name} must be an integer from 1 to ${max} (got ${value})`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0 (got ${value})`);
  return value;
}

/** Fills in the defaults and refuses values that cannot work, at construction rather than at the first send. */
export function resolveOptions(options: VerdictClientOptions): ResolvedOptions {
  if (typeof options.baseUrl !== "string" || options.baseUrl === "") throw new TypeError("baseUrl is required");
  if (typeof options.token !== "string" || options.token === "") throw new TypeError("token is required");
  const retry = { ...DEFAULT_CLIENT_OPTIONS.retry, ...options.retry };
  const idempotency = options.idempotency ?? DEFAULT_CLIENT_OPTIONS.idempotency;
  if (idempotency !== "auto" && idempotency !== "off") throw new RangeError(`idempotency must be "auto" or "off"`);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== "function") throw new TypeError("no fetch: pass options.fetch or use Node 18+");
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    token: options.token,
    maxBatchSize: positiveInteger(
      "maxBatchSize",
      options.maxBatchSize ?? DEFAULT_CLIENT_OPTIONS.maxBatchSize,
      MAX_BATCH_EVENTS,
    ),
    flushIntervalMs: nonNegative("flushIntervalMs", options.flushIntervalMs ?? DEFAULT_CLIENT_OPTIONS.flushIntervalMs),
    maxBufferedEvents: positiveInteger(
      "maxBufferedEvents",
      options.maxBufferedEvents ?? DEFAULT_CLIENT_OPTIONS.maxBufferedEvents,
    ),
    maxInFlight: positiveInteger("maxInFlight", options.maxInFlight ?? DEFAULT_CLIENT_OPTIONS.maxInFlight),
    retry: {
      maxAttempts: positiveInteger("retry.maxAttempts", retry.maxAttempts),
      baseDelayMs: nonNegative("retry.baseDelayMs", retry.baseDelayMs),
      maxDelayMs: nonNegative("retry.maxDelayMs", retry.maxDelayMs),
    },
    idempotency,
    timeoutMs: positiveInteger("timeoutMs", options.timeoutMs ?? DEFAULT_CLIENT_OPTIONS.timeoutMs),
    fetch: fetchImpl,
    onError: options.onError,
  };
}
