// Properties over generated conditions and traces: round trips, JSON = text, locks hold, progress, determinism.
import fc from "fast-check";
import { pack, unpack } from "msgpackr";
import { describe, expect, test } from "vitest";
import {
  MAX_DEPTH,
  MAX_TERMS,
  advanceTime,
  applyEvent,
  compileCondition,
  evaluate,
  formatCondition,
  initialState,
  nodeValues,
  parseCondition,
  replay,
  toConditionJson,
  type Comparator,
  type CompiledCondition,
  type Condition,
  type ConditionEvent,
  type ConditionState,
  type Literal,
} from "./index.js";

const RESERVED = new Set(["AND", "OR", "NOT", "MATCHES"]);
const comparator = fc.constantFrom<Comparator>(">=", ">", "<=", "<", "==", "!=");
const PATTERNS = ["^a", "b$", "^ok.*", "x|y", "(a+)+$", "(?i)GOLD", "^\\d+$", "é"];

interface Pools {
  action: fc.Arbitrary<string>;
  path: fc.Arbitrary<string>;
  literal: fc.Arbitrary<Literal>;
  count: fc.Arbitrary<number>;
  idle: fc.Arbitrary<number>;
}

/** Wide pools for printing and parsing: any legal name, any string, any finite number. */
const wide: Pools = {
  action: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,12}$/).filter((name) => !RESERVED.has(name)),
  path: fc
    .array(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/), { minLength: 1, maxLength: 3 })
    .map((s) => s.join(".")),
  literal: fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
    fc.integer(),
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 12 }),
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.boolean(),
  ),
  count: fc.nat({ max: 1_000_000 }),
  idle: fc.integer({ min: 1, max: 10_000_000 }).map((seconds) => seconds * 1000),
};

/** Narrow pools for evaluation, so generated events actually hit the generated terms. */
const ACTIONS = ["a", "b", "review", "x.y-z"];
const IDLES = [1000, 60_000, 90_000, 3_600_000];
const narrow: Pools = {
  action: fc.constantFrom(...ACTIONS),
  path: fc.constantFrom("value", "score", "meta.overall"),
  literal: fc.oneof(fc.integer({ min: -1, max: 5 }), fc.constantFrom("a", "ok", "gold", "b"), fc.boolean()),
  count: fc.nat({ max: 4 }),
  idle: fc.constantFrom(...IDLES),
};

function conditionArbitrary(pools: Pools, maxDepth: number): fc.Arbitrary<Condition> {
  const term: fc.Arbitrary<Condition> = fc.oneof(
    pools.action.map((action): Condition => ({ kind: "action", action })),
    fc
      .record({ action: pools.action, op: comparator, count: pools.count })
      .map((t): Condition => ({ kind: "count", ...t })),
    fc
      .record({ action: pools.action, path: pools.path, op: comparator, value: pools.literal })
      .map((t): Condition => ({ kind: "compare", ...t })),
    fc
      .record({ action: pools.action, path: pools.path, pattern: fc.constantFrom(...PATTERNS) })
      .map((t): Condition => ({ kind: "match", ...t })),
    pools.idle.map((ms): Condition => ({ kind: "idle", ms })),
  );
  const { node } = fc.letrec<{ node: Condition }>((tie) => ({
    node: fc.oneof(
      { maxDepth, depthSize: "small" },
      term,
      tie("node").map((operand): Condition => ({ kind: "not", operand })),
      fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((operands): Condition => ({ kind: "and", operands })),
      fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((operands): Condition => ({ kind: "or", operands })),
      tie("node").map((operand): Condition => ({ kind: "always", operand })),
      tie("node").map((operand): Condition => ({ kind: "eventually", operand })),
    ),
  }));
  return node.map(normalize).filter((c) => terms(c) <= MAX_TERMS && depth(c) <= MAX_DEPTH);
}

/** The parser's normal form: nested AND in AND (OR in OR) merged into one. */
function normalize(node: Condition): Condition {
  switch (node.kind) {
    case "and":
    case "or":
      return {
        kind: node.kind,
        operands: node.operands
          .map(normalize)
          .flatMap((child) => (child.kind === node.kind ? child.operands : [child])),
      };
    case "not":
    case "always":
    case "eventually":
      return { kind: node.kind, operand: normalize(node.operand) };
    default:
      return node;
  }
}

function terms(node: Condition): number {
  if (node.kind === "and" || node.kind === "or") return node.operands.reduce((sum, child) => sum + terms(child), 0);
  if (node.kind === "not" || node.kind === "always" || node.kind === "eventually") return terms(node.operand);
  return 1;
}

function depth(node: Condition): number {
  if (node.kind === "and" || node.kind === "or") return 1 + Math.max(...node.operands.map(depth));
  if (node.kind === "not" || node.kind === "always" || node.kind === "eventually") return 1 + depth(node.operand);
  return 0;
}

const propertyValue = fc.oneof(narrow.literal, fc.constant(null), fc.constantFrom("ok then", "xx", "aaa", "123"));
const events: fc.Arbitrary<ConditionEvent[]> = fc
  .array(
    fc.record({
      action: fc.constantFrom(...ACTIONS, "other"),
      properties: fc.option(
        fc.record(
          {
            value: propertyValue,
            score: propertyValue,
            meta: fc.record({ overall: propertyValue }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
        { nil: undefined },
      ),
      gap: fc.oneof(fc.constantFrom(0, 1000, 60_000, 90_000, 3_600_000), fc.integer({ min: 0, max: 4_000_000 })),
    }),
    { maxLength: 10 },
  )
  .map((list) => {
    let at = 0;
    return list.map(({ action, properties, gap }) => {
      at += gap;
      return { action, properties, at };
    });
  });

/**
 * Folds every event and the time between them, recording every node's value after each step. A verdict
 * is cleared so the fold goes on: this checks the terms, not the outcome (which would freeze).
 */
function trajectory(
  compiled: CompiledCondition,
  trace: ConditionEvent[],
): Array<{ at: number; values: string[]; state: ConditionState }> {
  const state = initialState(compiled, 0);
  const steps: Array<{ at: number; values: string[]; state: ConditionState }> = [];
  const record = (at: number): void => {
    steps.push({ at, values: nodeValues(compiled, state, at), state: structuredClone(state) });
  };
  const advance = (until: number): void => {
    while (advanceTime(compiled, state, until) !== null) {
      record(state.processedUntil);
      state.verdict = null;
    }
  };
  for (const event of trace) {
    advance(event.at);
    applyEvent(compiled, state, event);
    record(event.at);
    state.verdict = null;
  }
  const end = (trace.at(-1)?.at ?? 0) + 4_000_000;
  advance(end);
  record(end);
  return steps;
}

describe("printing and parsing", () => {
  test("format(ast) parses back to the same tree", () => {
    fc.assert(
      fc.property(conditionArbitrary(wide, 5), (ast) => {
        const text = formatCondition(ast);
        expect(parseCondition(text)).toEqual(ast);
        expect(formatCondition(parseCondition(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  test("the JSON form parses back to the same tree, as an object and as JSON text", () => {
    fc.assert(
      fc.property(conditionArbitrary(wide, 5), (ast) => {
        const json = toConditionJson(ast);
        expect(parseCondition(json)).toEqual(ast);
        expect(parseCondition(JSON.stringify(json))).toEqual(ast);
      }),
      { numRuns: 500 },
    );
  });
});

describe("evaluation", () => {
  const cases = fc.record({ ast: conditionArbitrary(narrow, 4), trace: events });

  test("the JSON form and the text form evaluate identically", () => {
    fc.assert(
      fc.property(cases, ({ ast, trace }) => {
        const fromText = compileCondition(parseCondition(formatCondition(ast)));
        const fromJson = compileCondition(parseCondition(JSON.stringify(toConditionJson(ast))));
        for (const now of [0, ...trace.map((e) => e.at + 1)]) {
          const events = trace.filter((e) => e.at <= now);
          const a = replay(fromText, events, { createdAt: 0, now });
          const b = replay(fromJson, events, { createdAt: 0, now });
          expect(b.evaluation).toEqual(a.evaluation);
          expect(b.verdict).toEqual(a.verdict);
          expect(b.settlement).toEqual(a.settlement);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a locked term never changes value as events and time are added", () => {
    fc.assert(
      fc.property(cases, ({ ast, trace }) => {
        const steps = trajectory(compileCondition(ast), trace);
        steps.forEach((step, k) => {
          step.values.forEach((value, node) => {
            if (value !== "locked_true" && value !== "locked_false") return;
            for (const later of steps.slice(k + 1)) expect(later.values[node]).toBe(value);
          });
        });
      }),
      { numRuns: 400 },
    );
  });

  test("progress is in [0, 1], and 1 whenever the condition is locked true", () => {
    fc.assert(
      fc.property(cases, ({ ast, trace }) => {
        const compiled = compileCondition(ast);
        for (const step of trajectory(compiled, trace)) {
          for (const now of [step.at, step.at + 30_000, step.at + 7_200_000]) {
            const { value, progress } = evaluate(compiled, step.state, now);
            expect(progress).toBeGreaterThanOrEqual(0);
            expect(progress).toBeLessThanOrEqual(1);
            if (value === "locked_true") expect(progress).toBe(1);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  test("evaluation is deterministic, does not mutate, and survives msgpack and JSON round trips", () => {
    fc.assert(
      fc.property(cases, fc.nat({ max: 8_000_000 }), ({ ast, trace }, extra) => {
        const now = (trace.at(-1)?.at ?? 0) + extra;
        const first = replay(compileCondition(ast), trace, { createdAt: 0, now });
        const second = replay(compileCondition(parseCondition(formatCondition(ast))), trace, { createdAt: 0, now });
        expect(second).toEqual(first);

        const compiled = compileCondition(ast);
        const state = first.state;
        const before = structuredClone(state);
        const view = evaluate(compiled, state, now);
        expect(evaluate(compiled, state, now)).toEqual(view);
        expect(state).toEqual(before);
        expect(evaluate(compiled, unpack(pack(state)) as ConditionState, now)).toEqual(view);
        expect(evaluate(compiled, JSON.parse(JSON.stringify(state)) as ConditionState, now)).toEqual(view);
      }),
      { numRuns: 300 },
    );
  });

  test("advanceTime is idempotent for the same instant", () => {
    fc.assert(
      fc.property(cases, fc.nat({ max: 8_000_000 }), ({ ast, trace }, until) => {
        const compiled = compileCondition(ast);
        const state = initialState(compiled, 0);
        const first = advanceTime(compiled, state, until);
        const snapshot = structuredClone(state);
        expect(advanceTime(compiled, state, until)).toEqual(first);
        expect(state).toEqual(snapshot);
        void trace;
      }),
      { numRuns: 200 },
    );
  });
});
