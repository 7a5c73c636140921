// Entry point for both input forms: text or JSON in, one typed tree out, only ConditionParseError thrown.
import type { Condition } from "./ast.js";
import { ConditionParseError } from "./errors.js";
import { parseJsonForm, type ConditionJson } from "./json-form.js";
import { MAX_DEPTH, MAX_JSON_BYTES, MAX_TEXT_BYTES, depthOf, utf8Length } from "./limits.js";
import { parseText, type ParseOptions } from "./parser.js";

export type ConditionInput = string | ConditionJson;

/**
 * Parses a condition given as text (`COUNT(a)>=2 AND NOT b`), as JSON text (`{"all": [...]}`) or as an
 * already-parsed JSON tree. Throws only ConditionParseError, whatever the input.
 */
export function parseCondition(input: ConditionInput, options: ParseOptions = {}): Condition {
  try {
    const condition = parseAny(input, options);
    // The text parser bounds parentheses as it goes; alternating AND/OR can still nest deeper.
    if (depthOf(condition) > MAX_DEPTH) throw new ConditionParseError(`nesting deeper than ${MAX_DEPTH}`);
    return condition;
  } catch (error) {
    if (error instanceof ConditionParseError) throw error;
    // A safety net: a bug or a hostile object (a throwing getter) must still surface as a parse error.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConditionParseError(`invalid condition: ${reason}`, { cause: error });
  }
}

function parseAny(input: unknown, options: ParseOptions): Condition {
  if (typeof input !== "string") return parseJsonForm(input, options);
  if (input.trimStart().startsWith("{")) {
    if (utf8Length(input, MAX_JSON_BYTES) > MAX_JSON_BYTES) {
      throw new ConditionParseError(`condition longer than ${MAX_JSON_BYTES / 1024} KiB`);
    }
    let tree: unknown;
    try {
      tree = JSON.parse(input);
    } catch (error) {
      throw new ConditionParseError(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    return parseJsonForm(tree, options);
  }
  if (utf8Length(input, MAX_TEXT_BYTES) > MAX_TEXT_BYTES) {
    throw new ConditionParseError(`condition longer than ${MAX_TEXT_BYTES / 1024} KiB`);
  }
  return parseText(input, options);
}
