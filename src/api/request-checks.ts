// Checks shared by the read and configuration routes: typia results to VALIDATION_ERROR, list paging
// parameters, and the 404 of each record kind.
import type { IValidation } from "typia";
import { ApiError, type ErrorDetail } from "../errors/api-error.js";
import { WELL_FORMED_RULE, malformedTextPath } from "../ingress/well-formed.js";

/** Longest key, in the path as in a body (decisions.md section 8). */
export const MAX_KEY_LENGTH = 512;

/**
 * Returns the validated body, or throws VALIDATION_ERROR pointing at each failing field. Every string in
 * it must be well-formed Unicode: keys would alias, and any text would not come back as sent.
 */
export function validBody<T>(result: IValidation<T>): T {
  if (result.success) {
    const malformed = malformedTextPath(result.data, "");
    if (malformed !== undefined)
      throw new ApiError("VALIDATION_ERROR", "request body is invalid", [
        { path: malformed || "body", message: WELL_FORMED_RULE },
      ]);
    return result.data;
  }
  const details: ErrorDetail[] = result.errors.map((error) => ({
    path: error.path.replace(/^\$input\.?/, "") || "body",
    // An equals-validator expects `undefined` where a field it does not know was sent.
    message: error.expected === "undefined" ? "unknown field" : `expected ${error.expected}`,
  }));
  throw new ApiError("VALIDATION_ERROR", "request body is invalid", details);
}

export interface Paging {
  limit: number;
  cursor: string | null;
}

/** `limit` 1..1000 (default 100) and an opaque `cursor`. */
export function paging(query: URLSearchParams): Paging {
  const rawLimit = query.get("limit");
  let limit = 100;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > 1000) {
      throw new ApiError("VALIDATION_ERROR", "limit must be an integer from 1 to 1000", [
        { path: "limit", message: "expected an integer from 1 to 1000" },
      ]);
    }
  }
  const cursor = query.get("cursor");
  return { limit, cursor: cursor === null || cursor === "" ? null : cursor };
}

export function invalidCursor(): ApiError {
  return new ApiError("VALIDATION_ERROR", "cursor is not one this API returned", [
    { path: "cursor", message: "unknown cursor" },
  ]);
}

/** An optional non-empty query filter. */
export function filterParam(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null || value === "" ? undefined : value;
}

/**
 * A key from the path, under the same rules as a key in a body: 1..512 characters. (Percent-decoding
 * already refused lone surrogates.) A longer one could never be named by a `task_key` and the like.
 */
export function pathKey(params: Record<string, string>, name = "key"): string {
  const key = params[name] ?? "";
  if (key.length < 1 || key.length > MAX_KEY_LENGTH) {
    throw new ApiError("VALIDATION_ERROR", `the ${name} in the path must be 1 to ${MAX_KEY_LENGTH} characters`, [
      { path: name, message: `must be 1 to ${MAX_KEY_LENGTH} characters (got ${key.length})` },
    ]);
  }
  return key;
}
