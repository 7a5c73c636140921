// Per-outcome condition state: plain data that round-trips through msgpack, small, frozen at a verdict.
import type { CompiledCondition } from "./compile.js";

export type Verdict = { kind: "confirm" | "fail"; at: number };

/** The latest value of one property, wrapped so an explicit `null` stays distinct from unset (`null`). */
export type FactValue = [value: unknown] | null;

/**
 * Everything the condition needs to know about an outcome's trace, and nothing more. Plain data (numbers,
 * arrays, null) so it round-trips through msgpack and JSON; times are epoch ms.
 */
export interface ConditionState {
  createdAt: number;
  /** Time of the last event applied; null before the first. */
  lastEventAt: number | null;
  /** Every point up to this instant (inclusive) has been processed. */
  processedUntil: number;
  /** Events seen per action the condition counts (compiled countSlot order). */
  counts: number[];
  /** Latest value per (action, property path) the condition reads (compiled factSlot order). */
  facts: FactValue[];
  /** Whether each MATCHES term's pattern occurs in its latest value, computed once per event. */
  matched: boolean[];
  /** Per F: operand was true at some point; per G: operand was false at some point (1) or not (0). */
  memory: number[];
  /** Set once a verdict is reached; the state is frozen from then on. */
  verdict: Verdict | null;
}

export function initialState(compiled: CompiledCondition, createdAt: number): ConditionState {
  return {
    createdAt,
    lastEventAt: null,
    processedUntil: createdAt,
    counts: new Array<number>(compiled.countSlots).fill(0),
    facts: new Array<FactValue>(compiled.factSlots).fill(null),
    matched: new Array<boolean>(compiled.patterns.length).fill(false),
    memory: new Array<number>(compiled.memorySlots).fill(0),
    verdict: null,
  };
}

/** A copy that can be advanced without touching the original (fact values are never mutated, so shared). */
export function cloneState(state: ConditionState): ConditionState {
  return {
    createdAt: state.createdAt,
    lastEventAt: state.lastEventAt,
    processedUntil: state.processedUntil,
    counts: state.counts.slice(),
    facts: state.facts.slice(),
    matched: state.matched.slice(),
    memory: state.memory.slice(),
    verdict: state.verdict === null ? null : { ...state.verdict },
  };
}
