// The typed error every HTTP handler throws or returns; the edge turns it into the spec's error body.
import type { QuotaName } from "../config/quotas.js";
import { HTTP_ERROR_STATUS, type HttpErrorCode } from "./codes.js";

/** One pointer into the request that explains a VALIDATION_ERROR, e.g. `events[12].action`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** The body of every error answer (decisions.md section 5); `details` only where it applies. */
export interface ErrorBody {
  error: {
    code: HttpErrorCode;
    message: string;
    details?: readonly ErrorDetail[];
    /** QUOTA_EXCEEDED only: the quota that is full, and its limit. */
    quota?: QuotaName;
    limit?: number;
    request_id: string;
  };
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;

  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly details?: readonly ErrorDetail[],
    options?: {
      cause?: unknown;
      retryAfterSeconds?: number;
      status?: number;
      quota?: { name: QuotaName; limit: number };
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status ?? HTTP_ERROR_STATUS[code];
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.quota = options?.quota;
  }

  /** Seconds for the `Retry-After` header on 503 and 429 answers. */
  readonly retryAfterSeconds: number | undefined;
  /** The quota a QUOTA_EXCEEDED names, and its limit. */
  readonly quota: { name: QuotaName; limit: number } | undefined;
}
