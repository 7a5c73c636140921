// The pure scores: the cohorts replayed without Redis, then properties (determinism, bounds,
// merging partial models by adding).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { EMPTY_MODEL, mergeModels, type CohortModel } from "./cohort-model.js";
import { erf } from "./erf.js";
import { ModelDelta } from "./model-delta.js";
import { MAX_ACTIONS, OTHER } from "./model-fields.js";
import { freshScoreState, type ScoreState } from "./score-state.js";
import { scoreEvent, scoreVerdict, trajectoryAt } from "./scoring.js";
import { trajectoryCell } from "./trajectory-cell.js";

interface Step {
  action: string;
  value?: number | undefined;
  progress?: number | undefined;
}

/** A cohort trained outcome by outcome, its merged model refreshed after each (no lag). */
class Cohort {
  private readonly partials: Record<string, string>[] = [];
  model: CohortModel = EMPTY_MODEL;

  /** Runs an outcome's steps (one second apart, 100 s deadline) and its verdict, if any; returns its state. */
  run(steps: readonly Step[], verdict?: boolean): ScoreState {
    const delta = new ModelDelta();
    const state = freshScoreState();
    steps.forEach((step, i) => {
      const at = 1000 * (i + 1);
      scoreEvent(
        state,
        this.model,
        { action: step.action, value: step.value, at, cell: trajectoryCell(step.progress ?? 0, 0, 100_000, at) },
        delta,
      );
    });
    if (verdict !== undefined) {
      const counts: Record<string, number> = {};
      for (const step of steps) counts[step.action] = (counts[step.action] ?? 0) + 1;
      scoreVerdict(state, this.model, { confirmed: verdict, counts }, delta);
    }
    this.partials.push(delta.asHash());
    this.model = mergeModels(this.partials);
    return state;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const normal = (i: number): Step[] => [
  { action: "a", value: 9 + (i % 3) },
  { action: "b", value: 10 + ((i * 7) % 5) / 4 },
  { action: "c", value: 11 - (i % 2) },
];

describe("scores against a trained cohort", () => {
  test("an outlying value scores anomaly >= 0.99 while the cohort's own stay below 0.9", () => {
    const cohort = new Cohort();
    for (let i = 0; i < 60; i++) cohort.run(normal(i), true);
    const normals = Array.from({ length: 20 }, (_, i) => cohort.run(normal(i + 60), true).anomaly!);
    const outlier = cohort.run(
      [
        { action: "a", value: 10 },
        { action: "b", value: 1000 },
        { action: "c", value: 10 },
      ],
      true,
    );
    expect(outlier.anomaly).toBeGreaterThanOrEqual(0.99);
    expect(median(normals)).toBeLessThan(0.9);
  });

  test("an unseen action sequence scores novelty >= 0.9 while the usual one stays <= 0.3", () => {
    const cohort = new Cohort();
    for (let i = 0; i < 60; i++) cohort.run(normal(i), true);
    expect(cohort.run(normal(60)).novelty).toBeLessThanOrEqual(0.3);
    expect(cohort.run([{ action: "x" }, { action: "y" }]).novelty).toBeGreaterThanOrEqual(0.9);
  });

  test("an open outcome further along the path that confirms has the higher trajectory", () => {
    const cohort = new Cohort();
    const abc: Step[] = [
      { action: "a", progress: 1 / 3 },
      { action: "b", progress: 2 / 3 },
      { action: "c", progress: 1 },
    ];
    for (let i = 0; i < 40; i++) {
      cohort.run(abc, true);
      cohort.run(abc.slice(0, 1), false);
    }
    const afterA = cohort.run(abc.slice(0, 1));
    const afterB = cohort.run(abc.slice(0, 2));
    expect(afterB.trajectory!).toBeGreaterThan(afterA.trajectory!);
    expect(afterA.trajectory).toBeCloseTo(0.5, 1);
  });

  test("every score is null before its warm-up and set after it; a verdict settles the trajectory", () => {
    const cohort = new Cohort();
    for (let i = 0; i < 19; i++) {
      const state = cohort.run(normal(i), true);
      expect(state.novelty).toBeNull();
      expect(state.anomaly).toBeNull();
      expect(state.trajectory).toBe(1);
    }
    const open = cohort.run(normal(19));
    expect(open).toMatchObject({ novelty: null, anomaly: null, trajectory: null });
    cohort.run(normal(20), true);
    const warm = cohort.run(normal(21));
    expect(warm.novelty).not.toBeNull();
    expect(warm.anomaly).not.toBeNull();
    expect(warm.trajectory).not.toBeNull();
    expect(cohort.run(normal(22), false).trajectory).toBe(0);
  });

  test("a cohort model holds at most MAX_ACTIONS actions, the rarest pooled as OTHER", () => {
    const partials: Record<string, string>[] = [];
    let model = EMPTY_MODEL;
    // Two shards each admit actions the other has not seen: the merge must still cap the vocabulary.
    for (let shard = 0; shard < 2; shard++) {
      const delta = new ModelDelta();
      for (let i = 0; i < 200; i++)
        scoreEvent(freshScoreState(), model, { action: `s${shard}-a${i}`, value: i, at: 0, cell: 0 }, delta);
      partials.push(delta.asHash());
    }
    model = mergeModels(partials);
    expect(model.actions.size).toBe(MAX_ACTIONS);
    expect(model.actions.has(OTHER)).toBe(true);
    // Once full, a new action trains OTHER.
    const delta = new ModelDelta();
    scoreEvent(freshScoreState(), model, { action: "brand-new", value: 1, at: 0, cell: 0 }, delta);
    expect(Object.keys(delta.asHash()).some((name) => name.includes("brand-new"))).toBe(false);
  });

  test("trajectory reads the cell with Laplace smoothing", () => {
    const model = mergeModels([{ s: "20", "c:5": "3", "f:5": "1" }]);
    expect(trajectoryAt(model, 5)).toBe(0.6667);
    expect(trajectoryAt(model, 6)).toBe(0.5);
  });

  test("trajectory cells: deciles of progress and elapsed fraction, or time buckets without a deadline", () => {
    expect(trajectoryCell(0.35, 0, 1000, 990)).toBe(39);
    expect(trajectoryCell(1, 0, 1000, 5000)).toBe(99);
    expect(trajectoryCell(0, 0, null, 500)).toBe(100);
    expect(trajectoryCell(0.5, 0, null, 30 * 24 * 3600 * 1000)).toBe(159);
  });

  test("erf matches known values to 1e-6", () => {
    expect(erf(0)).toBeCloseTo(0, 6);
    expect(erf(1)).toBeCloseTo(0.8427008, 6);
    expect(erf(-2)).toBeCloseTo(-0.9953223, 6);
  });
});

const action = fc.constantFrom("a", "b", "c", "d", "e");
const step = fc.record({
  action,
  value: fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: undefined }),
  progress: fc.double({ min: 0, max: 1, noNaN: true }),
});
const outcome = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  verdict: fc.option(fc.boolean(), { nil: undefined }),
});

function train(outcomes: readonly { steps: Step[]; verdict: boolean | undefined }[]): {
  cohort: Cohort;
  states: ScoreState[];
} {
  const cohort = new Cohort();
  const states = outcomes.map(({ steps, verdict }) => cohort.run(steps, verdict));
  return { cohort, states };
}

describe("properties", () => {
  test("deterministic: the same outcomes against the same models give the same scores and models", () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 50 }), (outcomes) => {
        const first = train(outcomes);
        const second = train(outcomes);
        expect(second.states).toEqual(first.states);
        expect(second.cohort.model).toEqual(first.cohort.model);
      }),
      { numRuns: 50 },
    );
  });

  test("every score is null or in [0, 1] with at most 4 decimals", () => {
    fc.assert(
      fc.property(fc.array(outcome, { minLength: 20, maxLength: 60 }), (outcomes) => {
        for (const state of train(outcomes).states) {
          for (const score of [state.trajectory, state.anomaly, state.novelty]) {
            if (score === null) continue;
            expect(score).toBeGreaterThanOrEqual(0);
            expect(score).toBeLessThanOrEqual(1);
            expect(Math.round(score * 1e4) / 1e4).toBe(score);
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  test("partial models merge by adding: any split over shards gives the model of one", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(outcome, fc.integer({ min: 0, max: 3 })), { maxLength: 40 }), (outcomes) => {
        const whole = new ModelDelta();
        const shards = [new ModelDelta(), new ModelDelta(), new ModelDelta(), new ModelDelta()];
        for (const [{ steps }, shard] of outcomes) {
          const state = freshScoreState();
          const one = freshScoreState();
          steps.forEach((s, i) => {
            const event = { action: s.action, value: s.value, at: i * 1000, cell: 0 };
            scoreEvent(state, EMPTY_MODEL, event, whole);
            scoreEvent(one, EMPTY_MODEL, event, shards[shard]!);
          });
        }
        expect(mergeModels(shards.map((d) => d.asHash()))).toEqual(mergeModels([whole.asHash()]));
      }),
      { numRuns: 50 },
    );
  });
});
