// Every error code the service speaks, with the HTTP status it maps to where it is returned over HTTP.

/** Codes returned over HTTP, with their status. */
export const HTTP_ERROR_STATUS = {
  TOKEN_INVALID: 401,
  OUTCOME_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  CUSTOMER_NOT_FOUND: 404,
  RATE_CARD_NOT_FOUND: 404,
  DEAD_LETTER_NOT_FOUND: 404,
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  WEBHOOK_MESSAGE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  OUTCOME_EXISTS: 409,
  /** A dead letter whose event Redis kept only a prefix of, with no archive holding the whole event. */
  DEAD_LETTER_TRUNCATED: 409,
  VALIDATION_ERROR: 400,
  PAYLOAD_TOO_LARGE: 413,
  /** POST /v1/traces with a Content-Type other than OTLP's protobuf or JSON. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A per-account quota is full: 403 for what the account stores, 429 (with Retry-After) for its event rate. */
  QUOTA_EXCEEDED: 403,
  QUEUE_REJECTED: 503,
  QUEUE_UNCONFIRMED: 503,
  /** Redis does not answer (down, restarting, stalled): reads and writes of the API, not event submission. */
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERROR_STATUS;

/** Codes surfaced only in the dead-letter queue (the HTTP answer stayed 202). */
export type DeadLetterCode =
  | "OUTCOME_NOT_FOUND"
  | "OUTCOME_NOT_OPEN"
  | "OUTCOME_IDENTITY_MISMATCH"
  | "AGENT_NOT_FOUND"
  | "CUSTOMER_NOT_FOUND"
  | "RATE_CARD_NOT_FOUND"
  | "RATE_CARD_ENTRY_NOT_FOUND"
  /** Applying the event would pass one of its outcome's caps (outcome-caps.ts); the message names which. */
  | "OUTCOME_TOO_LARGE"
  /** A Variant B event would open an outcome beyond the account's open-outcome quota. */
  | "QUOTA_EXCEEDED"
  | "PROCESSING_FAILED";
