// What pages ask of the typed client's refusals, and how a page's query becomes a client query: an empty
// form field is no filter at all.
import { VerdictError, type VerdictErrorCode } from "../client/verdict-error.js";

/** The API refused the call with one of `codes`. */
export function refusedWith(error: unknown, ...codes: VerdictErrorCode[]): error is VerdictError {
  return error instanceof VerdictError && codes.includes(error.code);
}

/** The API answered 404 for what the call named (any kind of record). */
export function isNotFound(error: unknown): boolean {
  return error instanceof VerdictError && error.status === 404;
}

/** A cursor the API refused (edited, cut short, another list's): that list has no such page. */
export function refusedCursor(error: unknown): boolean {
  return refusedWith(error, "VALIDATION_ERROR") && (error.details ?? []).some((detail) => detail.path === "cursor");
}

/** A query value for the client; absent and empty are both "not given". */
export function given(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) || undefined;
}
