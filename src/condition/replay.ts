// Replays a whole trace the way the service would (locks after events, quiescence at expiries, first verdict
// wins): for the CLI, tests and anyone checking a condition offline.
import { advanceTime, applyEvent, settle, type ConditionEvent } from "./apply.js";
import type { CompiledCondition } from "./compile.js";
import { evaluate, type Evaluation } from "./evaluate.js";
import { cloneState, initialState, type ConditionState, type Verdict } from "./state.js";

export interface ReplayResult {
  readonly state: ConditionState;
  /** What the service would have decided by `now`, or null while still open. */
  readonly verdict: Verdict | null;
  /** The view at the verdict instant (frozen there), or at `now`. */
  readonly evaluation: Evaluation;
  /** The forced verdict if the outcome settled at `now`; the verdict already reached, if any. */
  readonly settlement: Verdict;
}

/** Replays events (in processing order, none after `now`) from creation; events after a verdict are ignored. */
export function replay(
  compiled: CompiledCondition,
  events: Iterable<ConditionEvent>,
  options: { readonly createdAt: number; readonly now: number },
): ReplayResult {
  const state = initialState(compiled, options.createdAt);
  let verdict: Verdict | null = null;
  for (const event of events) {
    verdict = applyEvent(compiled, state, event);
    if (verdict !== null) break;
  }
  verdict ??= advanceTime(compiled, state, options.now);
  return {
    state,
    verdict,
    evaluation: evaluate(compiled, state, verdict?.at ?? options.now),
    settlement: verdict ?? settle(compiled, cloneState(state), options.now),
  };
}
