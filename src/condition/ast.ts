// The typed condition tree shared by the text and JSON forms: plain data, no behaviour.

/** Comparison operators, written as in the text form. */
export type Comparator = ">=" | ">" | "<=" | "<" | "==" | "!=";

/** Literals a comparison can hold: JSON numbers (finite), JSON strings and booleans. */
export type Literal = number | string | boolean;

/** `action`: the action happened at least once. */
export interface ActionTerm {
  readonly kind: "action";
  readonly action: string;
}

/** `COUNT(action) op count`: a non-negative integer bound on how many times the action happened. */
export interface CountTerm {
  readonly kind: "count";
  readonly action: string;
  readonly op: Comparator;
  readonly count: number;
}

/** `action:path op literal`: compares the latest value of a property; `path` is dotted, `value` by default. */
export interface CompareTerm {
  readonly kind: "compare";
  readonly action: string;
  readonly path: string;
  readonly op: Comparator;
  readonly value: Literal;
}

/** `action:path MATCHES "re"`: an RE2 search over the latest value of a property. */
export interface MatchTerm {
  readonly kind: "match";
  readonly action: string;
  readonly path: string;
  readonly pattern: string;
}

/** `IDLE(d)`: no event for `ms` milliseconds (a whole number of seconds, at least one). */
export interface IdleTerm {
  readonly kind: "idle";
  readonly ms: number;
}

export interface NotNode {
  readonly kind: "not";
  readonly operand: Condition;
}

/** AND / OR are n-ary (at least two operands) and flattened: no operand has the same kind. */
export interface AndNode {
  readonly kind: "and";
  readonly operands: readonly Condition[];
}

export interface OrNode {
  readonly kind: "or";
  readonly operands: readonly Condition[];
}

/** `G(x)`. */
export interface AlwaysNode {
  readonly kind: "always";
  readonly operand: Condition;
}

/** `F(x)`. */
export interface EventuallyNode {
  readonly kind: "eventually";
  readonly operand: Condition;
}

export type Term = ActionTerm | CountTerm | CompareTerm | MatchTerm | IdleTerm;

export type Condition = Term | NotNode | AndNode | OrNode | AlwaysNode | EventuallyNode;

/** The property path a fact reads when the condition names none (`review` is `review:value`). */
export const DEFAULT_PATH = "value";

export function isTerm(node: Condition): node is Term {
  return (
    node.kind === "action" ||
    node.kind === "count" ||
    node.kind === "compare" ||
    node.kind === "match" ||
    node.kind === "idle"
  );
}

/** The children of a node, empty for a term. */
export function childrenOf(node: Condition): readonly Condition[] {
  switch (node.kind) {
    case "and":
    case "or":
      return node.operands;
    case "not":
    case "always":
    case "eventually":
      return [node.operand];
    default:
      return [];
  }
}
