// The condition and settlement period of a task or agent, checked and made canonical before they are stored.
import { ConditionParseError, formatCondition, formatDuration, parseCondition, parseDuration, type ConditionInput } from "../condition/index.js";
import { ApiError } from "../errors/api-error.js";

function invalid(path: string, error: unknown): never {
  if (error instanceof ConditionParseError) {
    const where = error.path ? `${path}.${error.path}` : path;
    throw new ApiError("VALIDATION_ERROR", `${path}: ${error.message}`, [{ path: where, message: error.message }], { cause: error });
  }
  throw error;
}

/** Canonical condition text; agents (Variant B) may read only `value`. */
export function canonicalCondition(input: string | Record<string, unknown>, options: { valueOnly: boolean }): string {
  try {
    // The parser validates the JSON tree's shape itself, with paths into it.
    return formatCondition(parseCondition(input as ConditionInput, options));
  } catch (error) {
    return invalid("condition", error);
  }
}

/** Canonical settlement period (`1d2h`), or null when absent. */
export function canonicalPeriod(input: string | null | undefined): string | null {
  if (input === undefined || input === null) return null;
  try {
    return formatDuration(parseDuration(input));
  } catch (error) {
    return invalid("settlement_period", error);
  }
}
