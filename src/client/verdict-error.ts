// The one error the client rejects with: the service's error body (status, code, message, details) or the
// client's own reason (a network error, a timeout, retries run out, the client closed).
import type { ErrorDetail, HttpErrorCode } from "./wire-types.js";

/** Codes the client itself produces; a service answer carries one of `HttpErrorCode`. */
export type ClientErrorCode =
  /** fetch failed: connection refused or reset, DNS, TLS. The request may or may not have been applied. */
  | "NETWORK_ERROR"
  /** No answer within `timeoutMs`. The request may or may not have been applied. */
  | "TIMEOUT"
  /** A batch answered 202 but listed this event in `failed` (`rejected` or `unconfirmed`), on its last attempt. */
  | "EVENT_REJECTED"
  | "EVENT_UNCONFIRMED"
  /** `track` after `close()`. */
  | "CLIENT_CLOSED"
  /** An answer that is not the service's JSON (a proxy's HTML page, a truncated body). */
  | "UNEXPECTED_RESPONSE";

export type VerdictErrorCode = HttpErrorCode | ClientErrorCode;

export class VerdictError extends Error {
  override readonly name = "VerdictError";

  constructor(
    /** HTTP status of the answer; 0 when there was none (network error, timeout, closed client). */
    readonly status: number,
    readonly code: VerdictErrorCode,
    message: string,
    /** Pointers into the request (`events[12].action`) for VALIDATION_ERROR. */
    readonly details?: readonly ErrorDetail[],
    options?: { cause?: unknown; requestId?: string | undefined; retryAfterMs?: number | undefined },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.requestId = options?.requestId;
    this.retryAfterMs = options?.retryAfterMs;
  }

  /** The service's `request_id` (also its `X-Request-Id`), for its logs. */
  readonly requestId: string | undefined;
  /** The answer's `Retry-After`, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  /**
   * Whether sending the same request again can succeed: 408, 429, 5xx, timeouts and network errors.
   * A 4xx otherwise says the request itself is wrong; resending it would fail the same way.
   */
  get retryable(): boolean {
    if (this.status === 0) return this.code === "NETWORK_ERROR" || this.code === "TIMEOUT";
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}
