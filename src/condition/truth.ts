// The four-valued truth of every node at one instant (RV-LTL on finite traces), with F/G memory at points.
import type { Comparator, Literal } from "./ast.js";
import type { CompiledCondition } from "./compile.js";
import type { ConditionState } from "./state.js";

// Ordered so that AND is min, OR is max and NOT is 3 - v, locks included (Kleene logic).
export const LOCKED_FALSE = 0;
export const FALSE = 1;
export const TRUE = 2;
export const LOCKED_TRUE = 3;

export type TruthValue = "locked_true" | "true" | "false" | "locked_false";

export const TRUTH_NAMES: readonly TruthValue[] = ["locked_false", "false", "true", "locked_true"];
export const GLYPHS: readonly string[] = ["⊘", "✗", "~", "✓"];

/** COUNT(a) op n: `>=`/`>` lock true once reached, `<`/`<=` lock false once exceeded, `==`/`!=` both. */
export function countTruth(count: number, op: Comparator, bound: number): number {
  switch (op) {
    case ">=":
      return count >= bound ? LOCKED_TRUE : FALSE;
    case ">":
      return count > bound ? LOCKED_TRUE : FALSE;
    case "<":
      return count < bound ? TRUE : LOCKED_FALSE;
    case "<=":
      return count <= bound ? TRUE : LOCKED_FALSE;
    case "==":
      return count === bound ? TRUE : count < bound ? FALSE : LOCKED_FALSE;
    case "!=":
      return count > bound ? LOCKED_TRUE : count < bound ? TRUE : FALSE;
  }
}

/** Never coerces: `==` needs the same JSON type and value; ordering needs two numbers or two strings. */
export function compareValues(actual: unknown, op: Comparator, literal: Literal): boolean {
  if (op === "==") return actual === literal;
  if (op === "!=") return actual !== literal;
  if (!(
    (typeof actual === "number" && typeof literal === "number") ||
    (typeof actual === "string" && typeof literal === "string")
  )) {
    return false;
  }
  switch (op) {
    case ">=":
      return actual >= literal;
    case ">":
      return actual > literal;
    case "<=":
      return actual <= literal;
    default:
      return actual < literal;
  }
}

/** The instant IDLE windows count from: the last event, or creation before any event. */
export function idleBase(state: ConditionState): number {
  return state.lastEventAt ?? state.createdAt;
}

/**
 * Fills compiled.values with every node's truth at `now` and returns the root's. At a point of the trace
 * (`atPoint`), F records that its operand was true and G that its operand was false, before their own
 * value is read, so the memory includes this point.
 */
export function computeTruth(
  compiled: CompiledCondition,
  state: ConditionState,
  now: number,
  atPoint: boolean,
): number {
  const { nodes, values } = compiled;
  const elapsed = now - idleBase(state);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node === undefined) break;
    let value: number;
    switch (node.kind) {
      case "action":
        value = (state.counts[node.countSlot] ?? 0) > 0 ? LOCKED_TRUE : FALSE;
        break;
      case "count":
        value = countTruth(state.counts[node.countSlot] ?? 0, node.op, node.bound);
        break;
      case "compare": {
        const fact = state.facts[node.factSlot];
        value = fact != null && compareValues(fact[0], node.op, node.literal) ? TRUE : FALSE;
        break;
      }
      case "match":
        value = state.matched[node.matchSlot] === true ? TRUE : FALSE;
        break;
      case "idle":
        value = elapsed >= node.bound ? TRUE : FALSE;
        break;
      case "not":
        value = LOCKED_TRUE - (values[node.children[0] ?? 0] ?? 0);
        break;
      case "and": {
        value = LOCKED_TRUE;
        for (const child of node.children) value = Math.min(value, values[child] ?? 0);
        break;
      }
      case "or": {
        value = LOCKED_FALSE;
        for (const child of node.children) value = Math.max(value, values[child] ?? 0);
        break;
      }
      case "always": {
        const operand = values[node.children[0] ?? 0] ?? 0;
        if (atPoint && operand <= FALSE) state.memory[node.memorySlot] = 1;
        value = state.memory[node.memorySlot] === 1 ? LOCKED_FALSE : operand === LOCKED_TRUE ? LOCKED_TRUE : TRUE;
        break;
      }
      case "eventually": {
        const operand = values[node.children[0] ?? 0] ?? 0;
        if (atPoint && operand >= TRUE) state.memory[node.memorySlot] = 1;
        value = state.memory[node.memorySlot] === 1 ? LOCKED_TRUE : operand === LOCKED_FALSE ? LOCKED_FALSE : FALSE;
        break;
      }
    }
    values[i] = value;
  }
  return values[compiled.root] ?? 0;
}
