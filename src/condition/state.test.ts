// The state's contract with the actor: plain and small, frozen at a verdict, times that never run backwards.
import { pack } from "msgpackr";
import { describe, expect, test } from "vitest";
import {
  advanceTime,
  applyEvent,
  compileCondition,
  evaluate,
  initialState,
  parseCondition,
  settle,
  valueAt,
  annotate,
  type ConditionState,
} from "./index.js";

const SIX =
  'COUNT(agent_response)>=2 AND G(NOT escalated) AND review:score>=4 AND customer_csat_set AND IDLE(1d) AND reply MATCHES "^ok"';

function isPlain(value: unknown): boolean {
  if (value === null || typeof value === "number" || typeof value === "string" || typeof value === "boolean")
    return true;
  if (Array.isArray(value)) return value.every(isPlain);
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every((v) => v !== undefined && isPlain(v));
  }
  return false;
}

describe("condition state", () => {
  test("is plain data, well under 1 KiB packed for a 6-term condition", () => {
    const compiled = compileCondition(parseCondition(SIX));
    const state = initialState(compiled, Date.UTC(2026, 0, 1));
    let at = state.createdAt;
    for (const [action, properties] of [
      ["agent_response", { value: "a long answer that the condition never reads" }],
      ["review", { score: 5, comment: "good", meta: { overall: 4 } }],
      ["reply", { value: "ok, done" }],
      ["unrelated", { value: 1 }],
    ] as const) {
      at += 1000;
      applyEvent(compiled, state, { action, properties, at });
    }
    expect(isPlain(state)).toBe(true);
    expect(pack(state).length).toBeLessThan(256);
    expect(state.facts).toEqual([[5], ["ok, done"]]);
  });

  test("is frozen once a verdict is reached", () => {
    const compiled = compileCondition(parseCondition("a AND IDLE(1h)"));
    const state = initialState(compiled, 0);
    expect(applyEvent(compiled, state, { action: "a", properties: undefined, at: 1000 })).toBeNull();
    const verdict = advanceTime(compiled, state, 10_000_000);
    expect(verdict).toEqual({ kind: "confirm", at: 3_601_000 });
    const frozen = structuredClone(state);
    expect(applyEvent(compiled, state, { action: "b", properties: undefined, at: 20_000_000 })).toEqual(verdict);
    expect(advanceTime(compiled, state, 30_000_000)).toEqual(verdict);
    expect(settle(compiled, state, 40_000_000)).toEqual(verdict);
    expect(state).toEqual(frozen);
    // Read at any later time, a terminal outcome shows the state at its verdict instant.
    expect(evaluate(compiled, state, 50_000_000)).toEqual(evaluate(compiled, state, 3_601_000));
    expect(evaluate(compiled, state, 50_000_000)).toMatchObject({
      annotated: "✓a AND ~IDLE(1h)[0s]",
      progress: 1,
      nextWakeAt: null,
    });
  });

  test("an event processes the IDLE expiries before it even when the caller did not advance time", () => {
    const compiled = compileCondition(parseCondition("IDLE(1h)"));
    const state = initialState(compiled, 0);
    expect(applyEvent(compiled, state, { action: "x", properties: undefined, at: 7_200_000 })).toEqual({
      kind: "confirm",
      at: 3_600_000,
    });
  });

  test("an event earlier than the processed time is taken at the processed time", () => {
    const compiled = compileCondition(parseCondition("IDLE(1h) OR COUNT(a)>=5"));
    const state = initialState(compiled, 0);
    advanceTime(compiled, state, 1_000_000);
    applyEvent(compiled, state, { action: "a", properties: undefined, at: 500 });
    expect(state.lastEventAt).toBe(1_000_000);
    expect(evaluate(compiled, state, 1_000_000).nextWakeAt).toBe(4_600_000);
  });

  test("settlement confirms true-now and locked-true conditions and fails the rest", () => {
    const cases: Array<[string, "confirm" | "fail"]> = [
      ["NOT escalated", "confirm"],
      ["escalated", "fail"],
      ["COUNT(a)>=0", "confirm"],
      ["G(a)", "confirm"],
      ["F(NOT a)", "fail"],
      ["IDLE(1h)", "confirm"],
    ];
    for (const [text, kind] of cases) {
      const compiled = compileCondition(parseCondition(text));
      const state: ConditionState = initialState(compiled, 0);
      expect(settle(compiled, state, 5_000_000), text).toEqual({
        kind,
        at: text === "IDLE(1h)" ? 3_600_000 : 5_000_000,
      });
      expect(state.verdict?.kind).toBe(kind);
    }
  });

  test("reads do not process time into the caller's state", () => {
    const compiled = compileCondition(parseCondition("F(IDLE(1h))"));
    const state = initialState(compiled, 0);
    const before = structuredClone(state);
    expect(valueAt(compiled, state, 7_200_000)).toBe("locked_true");
    expect(annotate(compiled, state, 7_200_000)).toBe("✓F(~IDLE(1h)[0s])");
    expect(state).toEqual(before);
    expect(valueAt(compiled, state, 1000)).toBe("false");
  });
});
