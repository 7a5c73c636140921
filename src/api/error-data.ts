// An error as plain data and back, for answers worked out on another thread: structured clone keeps an
// Error's message but not its class, and an ApiError's code, status and Retry-After make its answer.
import { ApiError, type ErrorDetail } from "../errors/api-error.js";
import type { HttpErrorCode } from "../errors/codes.js";
import type { QuotaName } from "../config/quotas.js";

export interface ErrorData {
  /** Only for an ApiError: an answer in the spec's error shape. */
  code?: HttpErrorCode;
  message: string;
  details?: readonly ErrorDetail[];
  status?: number;
  retryAfterSeconds?: number;
  quota?: { name: QuotaName; limit: number };
  stack?: string;
}

export function errorData(error: unknown): ErrorData {
  if (error instanceof ApiError)
    return {
      code: error.code,
      message: error.message,
      ...(error.details !== undefined && { details: error.details }),
      status: error.status,
      ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
      ...(error.quota !== undefined && { quota: error.quota }),
    };
  if (error instanceof Error)
    return { message: error.message, ...(error.stack !== undefined && { stack: error.stack }) };
  return { message: String(error) };
}

export function errorFromData(data: ErrorData): Error {
  if (data.code === undefined) return Object.assign(new Error(data.message), { stack: data.stack });
  return new ApiError(data.code, data.message, data.details, {
    ...(data.status !== undefined && { status: data.status }),
    ...(data.retryAfterSeconds !== undefined && { retryAfterSeconds: data.retryAfterSeconds }),
    ...(data.quota !== undefined && { quota: data.quota }),
  });
}
