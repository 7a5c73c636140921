// The contract a task or an agent carries (name, goal, condition, settlement period): its request shape,
// checked and made canonical before it is stored.
import {
  ConditionParseError,
  formatCondition,
  formatDuration,
  parseCondition,
  parseDuration,
  type ConditionInput,
} from "../condition/index.js";
import type { tags } from "typia";
import { ApiError } from "../errors/api-error.js";

/** The fields a task and an agent share in their PUT bodies. */
export interface ContractBody {
  name: string & tags.MinLength<1> & tags.MaxLength<512>;
  goal?: (string & tags.MaxLength<4096>) | null;
  /** Text or JSON tree; the condition parser checks the tree's shape and points at what is wrong. */
  condition: (string & tags.MinLength<1>) | Record<string, unknown>;
  settlement_period?: (string & tags.MinLength<1>) | null;
}

export interface ContractFields {
  name: string;
  goal: string | null;
  condition: string;
  settlement_period: string | null;
}

function invalid(path: string, error: unknown): never {
  if (error instanceof ConditionParseError) {
    const where = error.path ? `${path}.${error.path}` : path;
    throw new ApiError("VALIDATION_ERROR", `${path}: ${error.message}`, [{ path: where, message: error.message }], {
      cause: error,
    });
  }
  throw error;
}

/** Canonical condition text; agents (Variant B) may read only `value`. */
function canonicalCondition(input: string | Record<string, unknown>, options: { valueOnly: boolean }): string {
  try {
    // The parser validates the JSON tree's shape itself, with paths into it.
    return formatCondition(parseCondition(input as ConditionInput, options));
  } catch (error) {
    return invalid("condition", error);
  }
}

/** Canonical settlement period (`1d2h`), or null when absent. */
function canonicalPeriod(input: string | null | undefined): string | null {
  if (input === undefined || input === null) return null;
  try {
    return formatDuration(parseDuration(input));
  } catch (error) {
    return invalid("settlement_period", error);
  }
}

/** The stored form of a validated contract; agents (Variant B) may read only `value` in their condition. */
export function contractFields(body: ContractBody, options: { valueOnly: boolean }): ContractFields {
  return {
    name: body.name,
    goal: body.goal ?? null,
    condition: canonicalCondition(body.condition, options),
    settlement_period: canonicalPeriod(body.settlement_period),
  };
}
