// The clauses of a condition (what a verdict can be explained by) and how a verdict came about.
import type { Condition } from "./ast.js";
import type { CompiledCondition } from "./compile.js";
import { formatCondition } from "./format.js";
import type { ConditionState } from "./state.js";
import { FALSE, LOCKED_FALSE, LOCKED_TRUE, computeTruth, idleBase } from "./truth.js";

/** One clause: a leaf under the AND/OR tree (a term, `NOT x`, or a G/F operator as a whole). */
export interface Clause {
  /**
   * Stable for this leaf of this condition: `<8 hex digits of the canonical text's FNV-1a>.<n>`, n its
   * position from the left, so the same clause of two versions of a task's condition never share an id.
   */
  id: string;
  text: string;
}

/** How a verdict was reached: a locked condition at an event, quiescence at an IDLE expiry, or the deadline. */
export type VerdictCause = "locked" | "idle" | "deadline";

function textHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, "0");
}

function subtreeSize(node: Condition): number {
  switch (node.kind) {
    case "and":
    case "or":
      return 1 + node.operands.reduce((sum, operand) => sum + subtreeSize(operand), 0);
    case "not":
    case "always":
    case "eventually":
      return 1 + subtreeSize(node.operand);
    default:
      return 1;
  }
}

/**
 * Every clause with the post-order index of its node (compile.ts numbers nodes children first), left to
 * right: AND and OR are looked through, anything else is one clause.
 */
function clausesOf(condition: Condition, hash: string): Array<Clause & { node: number }> {
  const found: Array<Clause & { node: number }> = [];
  const walk = (node: Condition, first: number): void => {
    if (node.kind === "and" || node.kind === "or") {
      let next = first;
      for (const operand of node.operands) {
        walk(operand, next);
        next += subtreeSize(operand);
      }
      return;
    }
    found.push({ id: `${hash}.${found.length + 1}`, text: formatCondition(node), node: first + subtreeSize(node) - 1 });
  };
  walk(condition, 0);
  return found;
}

/** Every clause of the condition, left to right. */
export function conditionClauses(compiled: CompiledCondition): Clause[] {
  return clausesOf(compiled.condition, textHash(compiled.text)).map(({ id, text }) => ({ id, text }));
}

/** The clauses false (or locked false) at the verdict of a verdicted state: under AND and OR alike. */
export function falseClausesAtVerdict(compiled: CompiledCondition, state: ConditionState): Clause[] {
  if (state.verdict === null) return [];
  computeTruth(compiled, state, state.verdict.at, false);
  return clausesOf(compiled.condition, textHash(compiled.text))
    .filter(({ node }) => (compiled.values[node] ?? LOCKED_FALSE) <= FALSE)
    .map(({ id, text }) => ({ id, text }));
}

/**
 * How the state's verdict came: at an event that locked the condition, at an IDLE expiry with the condition
 * true (quiescence), or else when the outcome's settles_at forced it.
 */
export function verdictCause(compiled: CompiledCondition, state: ConditionState): VerdictCause | null {
  const verdict = state.verdict;
  if (verdict === null) return null;
  const root = computeTruth(compiled, state, verdict.at, false);
  if (state.lastEventAt === verdict.at && (root === LOCKED_TRUE || root === LOCKED_FALSE)) return "locked";
  const base = idleBase(state);
  if (verdict.kind === "confirm" && compiled.idleWindows.some((window) => base + window === verdict.at)) return "idle";
  return "deadline";
}
