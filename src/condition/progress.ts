// Deterministic progress in [0, 1] (sections 2 and 8): fractional for COUNT >=/> and IDLE, else 0 or 1.
import type { CompiledCondition } from "./compile.js";
import type { ConditionState } from "./state.js";
import { LOCKED_FALSE, LOCKED_TRUE, TRUE, idleBase } from "./truth.js";

/** Progress of the root, from compiled.values, which computeTruth must have just filled for this state. */
export function progressComputed(compiled: CompiledCondition, state: ConditionState, at: number): number {
  const { nodes, values, progress } = compiled;
  const elapsed = Math.max(0, at - idleBase(state));
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node === undefined) break;
    const value = values[i] ?? 0;
    let result: number;
    switch (node.kind) {
      case "count": {
        const count = state.counts[node.countSlot] ?? 0;
        if (node.op === ">=") result = node.bound === 0 ? 1 : Math.min(count / node.bound, 1);
        else if (node.op === ">") result = Math.min(count / (node.bound + 1), 1);
        else result = value >= TRUE ? 1 : 0;
        break;
      }
      case "idle":
        result = Math.min(elapsed / node.bound, 1);
        break;
      case "and": {
        let sum = 0;
        for (const child of node.children) sum += progress[child] ?? 0;
        result = sum / node.children.length;
        break;
      }
      case "or": {
        result = 0;
        for (const child of node.children) result = Math.max(result, progress[child] ?? 0);
        break;
      }
      case "always":
      case "eventually":
        // A locked F/G is done or dead; an open one is as far along as its operand.
        result = value === LOCKED_TRUE ? 1 : value === LOCKED_FALSE ? 0 : (progress[node.children[0] ?? 0] ?? 0);
        break;
      default:
        // Actions, comparisons, matches and NOT: 1 when true, else 0.
        result = value >= TRUE ? 1 : 0;
    }
    progress[i] = result;
  }
  return progress[compiled.root] ?? 0;
}
