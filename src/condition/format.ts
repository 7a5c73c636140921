// Canonical one-line text of a condition (section 8): flattened AND/OR, only meaningful parentheses.
import { DEFAULT_PATH, type Condition, type Term } from "./ast.js";
import { formatDuration } from "./duration.js";

/** `review:score`, or just `review` when the path is the default `value`. */
export function factText(action: string, path: string): string {
  return path === DEFAULT_PATH ? action : `${action}:${path}`;
}

/** A term's own text, without glyph or bracket: `COUNT(a)>=2`, `review:score>=4`, `IDLE(1d)`. */
export function termText(term: Term): string {
  switch (term.kind) {
    case "action":
      return term.action;
    case "count":
      return `COUNT(${term.action})${term.op}${term.count}`;
    case "compare":
      return `${factText(term.action, term.path)}${term.op}${JSON.stringify(term.value)}`;
    case "match":
      return `${factText(term.action, term.path)} MATCHES ${JSON.stringify(term.pattern)}`;
    case "idle":
      return `IDLE(${formatDuration(term.ms)})`;
  }
}

/** Whether a child of `childKind` needs parentheses under a `parentKind` parent to keep its meaning. */
export function needsParens(parentKind: Condition["kind"], childKind: Condition["kind"]): boolean {
  if (parentKind === "not") return childKind === "and" || childKind === "or";
  if (parentKind === "and") return childKind === "or";
  return false;
}

export function formatCondition(condition: Condition): string {
  switch (condition.kind) {
    case "and":
    case "or":
      return condition.operands
        .map((operand) => wrap(condition.kind, operand))
        .join(condition.kind === "and" ? " AND " : " OR ");
    case "not":
      return `NOT ${wrap("not", condition.operand)}`;
    case "always":
      return `G(${formatCondition(condition.operand)})`;
    case "eventually":
      return `F(${formatCondition(condition.operand)})`;
    default:
      return termText(condition);
  }
}

function wrap(parentKind: Condition["kind"], child: Condition): string {
  const text = formatCondition(child);
  return needsParens(parentKind, child.kind) ? `(${text})` : text;
}
