// Read-only view of a condition state at an instant: value, annotation, progress, next wake-up.
import { advanceTime, nextExpiryAfter } from "./apply.js";
import { annotateComputed } from "./annotate.js";
import type { CompiledCondition } from "./compile.js";
import { progressComputed } from "./progress.js";
import { cloneState, type ConditionState } from "./state.js";
import { TRUTH_NAMES, computeTruth, type TruthValue } from "./truth.js";

export interface Evaluation {
  value: TruthValue;
  annotated: string;
  progress: number;
  /** The next instant time alone can change something (an IDLE window elapsing), or null. */
  nextWakeAt: number | null;
}

interface View {
  readonly state: ConditionState;
  readonly at: number;
}

/**
 * The state and instant a read at `now` describes. A verdicted state is frozen at its verdict. Points the
 * caller has not processed yet (IDLE expiries up to `now`) are processed on a copy, so reading never
 * mutates; when one of them would reach a verdict, the view is the state frozen at that verdict.
 */
function viewAt(compiled: CompiledCondition, state: ConditionState, now: number): View {
  if (state.verdict !== null) return { state, at: state.verdict.at };
  const at = Math.max(now, state.processedUntil);
  const expiry = nextExpiryAfter(compiled, state, state.processedUntil);
  if (expiry === null || expiry > at) return { state, at };
  const copy = cloneState(state);
  const verdict = advanceTime(compiled, copy, at);
  return { state: copy, at: verdict === null ? at : verdict.at };
}

/** The four-valued value alone: the cheap read after each event. */
export function valueAt(compiled: CompiledCondition, state: ConditionState, now: number): TruthValue {
  const view = viewAt(compiled, state, now);
  return TRUTH_NAMES[computeTruth(compiled, view.state, view.at, false)] ?? "false";
}

/** Progress alone, without the annotation: the read after each event that scoring needs. */
export function progressAt(compiled: CompiledCondition, state: ConditionState, now: number): number {
  const view = viewAt(compiled, state, now);
  if (view.state.verdict?.kind === "confirm") return 1;
  computeTruth(compiled, view.state, view.at, false);
  return progressComputed(compiled, view.state, view.at);
}

/** The annotated string alone, e.g. `✓COUNT(agent_response)>=2[3] AND ~NOT escalated`. */
export function annotate(compiled: CompiledCondition, state: ConditionState, now: number): string {
  const view = viewAt(compiled, state, now);
  computeTruth(compiled, view.state, view.at, false);
  return annotateComputed(compiled, view.state, view.at);
}

/** Every node's value in post-order (children before parents, root last): for tests and debugging. */
export function nodeValues(compiled: CompiledCondition, state: ConditionState, now: number): TruthValue[] {
  const view = viewAt(compiled, state, now);
  computeTruth(compiled, view.state, view.at, false);
  return Array.from(compiled.values, (value) => TRUTH_NAMES[value] ?? "false");
}

export function evaluate(compiled: CompiledCondition, state: ConditionState, now: number): Evaluation {
  const view = viewAt(compiled, state, now);
  const value = computeTruth(compiled, view.state, view.at, false);
  const verdict = view.state.verdict;
  return {
    value: TRUTH_NAMES[value] ?? "false",
    annotated: annotateComputed(compiled, view.state, view.at),
    // A CONFIRMED outcome has progress 1 even when it confirmed on a true-now (unlocked) condition.
    progress: verdict?.kind === "confirm" ? 1 : progressComputed(compiled, view.state, view.at),
    nextWakeAt: verdict === null ? nextExpiryAfter(compiled, view.state, view.at) : null,
  };
}
