// Turns the API's VALIDATION_ERROR details into messages beside the form's fields, in words a person reads.
import { VerdictError } from "../client/verdict-error.js";

export type FieldErrors = Record<string, string>;

/** "expected ')' at column 9" -> "Expected ')' at column 9." */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** typia's "expected string & MinLength<1>" is for programs; say what to type instead. */
function readable(message: string): string {
  if (/MinLength<1>/.test(message)) return "This cannot be empty.";
  if (/MaxLength<(\d+)>/.test(message)) return `Use at most ${/MaxLength<(\d+)>/.exec(message)![1]} characters.`;
  if (/\^\[A-Z\]\{3\}\$/.test(message)) return "Use a three-letter ISO 4217 code such as EUR or USD.";
  if (/int64|Minimum<0>/.test(message)) return "Use a whole number of minor units, 0 or more (cents: 250 is 2.50).";
  return sentence(message.replace(/^condition: |^settlement_period: /, ""));
}

/**
 * The errors of a failed API call by form field (the first segment of each detail's path), or undefined
 * when the error is neither a validation error nor a full quota (the caller rethrows it).
 */
export function fieldErrors(
  error: unknown,
  fieldOf: (path: string) => string = (path) => path.split(/[.[]/)[0] ?? path,
): FieldErrors | undefined {
  // A full quota is the form's to say, in the service's own words (they name the quota and its limit).
  if (error instanceof VerdictError && error.code === "QUOTA_EXCEEDED") return { _form: sentence(error.message) };
  if (!(error instanceof VerdictError) || error.code !== "VALIDATION_ERROR") return undefined;
  const errors: FieldErrors = {};
  for (const detail of error.details ?? []) {
    const field = fieldOf(detail.path);
    errors[field] ??= readable(detail.message);
  }
  if (Object.keys(errors).length === 0) errors._form = sentence(error.message);
  return errors;
}
