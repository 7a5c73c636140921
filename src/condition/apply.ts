// The transitions that fold time and events into a condition state: each is a point of the trace.
import type { CompiledCondition } from "./compile.js";
import type { ConditionState, Verdict } from "./state.js";
import { LOCKED_FALSE, LOCKED_TRUE, TRUE, computeTruth, idleBase } from "./truth.js";

/** The first IDLE expiry strictly after `after` (with no event in between), or null. */
export function nextExpiryAfter(compiled: CompiledCondition, state: ConditionState, after: number): number | null {
  const base = idleBase(state);
  for (const window of compiled.idleWindows) {
    if (base + window > after) return base + window;
  }
  return null;
}

function decide(state: ConditionState, kind: Verdict["kind"], at: number): Verdict {
  state.verdict = { kind, at };
  return state.verdict;
}

/**
 * Processes every IDLE expiry in (processedUntil, until] as a point of the trace (F/G memory) and applies
 * quiescence: the whole condition true at an expiry confirms at that instant; it never fails there.
 * Returns the first verdict (or the one already reached), else null. Idempotent for the same `until`.
 */
export function advanceTime(compiled: CompiledCondition, state: ConditionState, until: number): Verdict | null {
  if (state.verdict !== null) return state.verdict;
  if (until <= state.processedUntil) return null;
  let expiry = nextExpiryAfter(compiled, state, state.processedUntil);
  while (expiry !== null && expiry <= until) {
    state.processedUntil = expiry;
    if (computeTruth(compiled, state, expiry, true) >= TRUE) return decide(state, "confirm", expiry);
    expiry = nextExpiryAfter(compiled, state, expiry);
  }
  state.processedUntil = until;
  return null;
}

export interface ConditionEvent {
  readonly action: string;
  readonly properties: Record<string, unknown> | undefined;
  readonly at: number;
}

/** Follows a dotted path through own properties of plain objects; undefined when the event lacks it. */
function readPath(properties: Record<string, unknown> | undefined, segments: readonly string[]): unknown {
  let current: unknown = properties;
  for (const segment of segments) {
    if (typeof current !== "object" || current === null || Array.isArray(current) || !Object.hasOwn(current, segment)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * Folds one event in: O(terms of its action) to update, then one pass over the tree for the point. Confirms
 * when the condition becomes locked true, fails when locked false, at the event's time. Any IDLE expiry up
 * to the event's time is processed first (a no-op when the caller already advanced time). Out-of-order
 * times are clamped to the last processed instant so time never runs backwards.
 */
export function applyEvent(compiled: CompiledCondition, state: ConditionState, event: ConditionEvent): Verdict | null {
  const earlier = advanceTime(compiled, state, event.at);
  if (earlier !== null) return earlier;
  const at = Math.max(event.at, state.processedUntil);
  state.lastEventAt = at;
  state.processedUntil = at;
  const binding = compiled.byAction.get(event.action);
  if (binding !== undefined) {
    if (binding.countSlot >= 0) state.counts[binding.countSlot] = (state.counts[binding.countSlot] ?? 0) + 1;
    for (const fact of binding.facts) {
      const value = readPath(event.properties, fact.segments);
      if (value === undefined) continue;
      state.facts[fact.slot] = [value];
      for (const slot of fact.matchSlots) {
        state.matched[slot] = typeof value === "string" && (compiled.patterns[slot]?.test(value) ?? false);
      }
    }
  }
  const value = computeTruth(compiled, state, at, true);
  if (value === LOCKED_TRUE) return decide(state, "confirm", at);
  if (value === LOCKED_FALSE) return decide(state, "fail", at);
  return null;
}

/**
 * The forced verdict when the outcome settles at `at`: time is advanced first (quiescence may confirm),
 * then the trace ends: true now or locked true confirms, anything else fails.
 */
export function settle(compiled: CompiledCondition, state: ConditionState, at: number): Verdict {
  const earlier = advanceTime(compiled, state, at);
  if (earlier !== null) return earlier;
  const instant = Math.max(at, state.processedUntil);
  return decide(state, computeTruth(compiled, state, instant, false) >= TRUE ? "confirm" : "fail", instant);
}
