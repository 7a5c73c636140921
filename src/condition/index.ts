// The condition language's public surface: parse, print, compile, fold events, evaluate. Pure, no I/O.
export type {
  ActionTerm,
  AlwaysNode,
  AndNode,
  Comparator,
  CompareTerm,
  Condition,
  CountTerm,
  EventuallyNode,
  IdleTerm,
  Literal,
  MatchTerm,
  NotNode,
  OrNode,
  Term,
} from "./ast.js";
export { ConditionParseError } from "./errors.js";
export { parseCondition, type ConditionInput } from "./parse.js";
export type { ParseOptions } from "./parser.js";
export { toConditionJson, type ConditionJson, type JsonComparator } from "./json-form.js";
export { formatCondition } from "./format.js";
export { formatDuration, formatRemaining, parseDuration } from "./duration.js";
export { compileCondition, type CompiledCondition } from "./compile.js";
export { cloneState, initialState, type ConditionState, type FactValue, type Verdict } from "./state.js";
export { advanceTime, applyEvent, nextExpiryAfter, settle, type ConditionEvent } from "./apply.js";
export { annotate, evaluate, nodeValues, progressAt, valueAt, type Evaluation } from "./evaluate.js";
export type { TruthValue } from "./truth.js";
export { MAX_DEPTH, MAX_TERMS, MAX_TEXT_BYTES } from "./limits.js";
export { replay, type ReplayResult } from "./replay.js";
export { conditionClauses, falseClausesAtVerdict, verdictCause, type Clause, type VerdictCause } from "./clauses.js";
