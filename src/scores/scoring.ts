// Scores one outcome against its cohort's model, then teaches the model what the outcome did. Pure and
// deterministic: the same observations against the same model give the same scores and the same delta.
// The model is never changed here; what the outcome teaches goes into a ModelDelta that the caller commits.
import { modelAction, type CohortModel, type FeatureStats } from "./cohort-model.js";
import { twoSided } from "./erf.js";
import type { ModelDelta } from "./model-delta.js";
import {
  featureFields,
  field,
  outgoingField,
  OUTCOMES,
  SETTLED,
  START,
  transitionField,
  type FeatureKind,
} from "./model-fields.js";
import type { ScoreState } from "./score-state.js";

/** Cohort size (started outcomes for novelty, settled ones for trajectory, samples for a feature) before a score is given. */
export const WARM_UP = 20;

export interface EventObservation {
  action: string;
  /** properties.value when it is a finite number. */
  value: number | undefined;
  /** The event's instant (ms). */
  at: number;
  /** The outcome's trajectory cell after the event (trajectoryCell). */
  cell: number;
}

export interface VerdictObservation {
  confirmed: boolean;
  /** Events per action over the outcome's life. */
  counts: Readonly<Record<string, number>>;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/** Laplace-smoothed chance of CONFIRMED from a cell, or null before the warm-up. */
export function trajectoryAt(model: CohortModel, cell: number): number | null {
  if (model.settled < WARM_UP) return null;
  const counts = model.cells.get(cell);
  const confirmed = counts?.confirmed ?? 0;
  const failed = counts?.failed ?? 0;
  return round4((confirmed + 1) / (confirmed + failed + 2));
}

/**
 * Surprisal of `next` after `prev`, -log2 P, over log2(V + 1), in [0, 1]; P has add-one smoothing over the
 * cohort's V actions. An action the cohort never did scores 1.
 */
export function stepSurprisal(model: CohortModel, prev: string, next: string): number {
  if (!model.actions.has(next)) return 1;
  const v = model.actions.size;
  const p = ((model.transitions.get(transitionField(prev, next)) ?? 0) + 1) / ((model.outgoing.get(prev) ?? 0) + v);
  return clamp01(-Math.log2(p) / Math.log2(v + 1));
}

/**
 * How far `x` sits from a feature's samples, erf(|z| / sqrt(2)), or null before WARM_UP samples. With no
 * spread (every sample equal, up to float noise) a sample equal to them scores 0 and any other 1.
 */
export function featureAnomaly(stats: FeatureStats | undefined, x: number): number | null {
  if (!stats || stats.samples < WARM_UP) return null;
  const mean = stats.sum / stats.samples;
  const variance = Math.max(0, stats.squares / stats.samples - mean * mean);
  const std = Math.sqrt(variance);
  const noise = 1e-9 * Math.max(1, Math.abs(mean));
  if (std <= noise) return Math.abs(x - mean) <= noise ? 0 : 1;
  return twoSided((x - mean) / std);
}

/** Scores one sample of a feature into the outcome's running maximum, then trains the feature with it. */
function sample(
  state: ScoreState,
  model: CohortModel,
  delta: ModelDelta,
  kind: FeatureKind,
  action: string,
  x: number,
): void {
  const fields = featureFields(kind, action);
  const score = featureAnomaly(model.features.get(fields.feature), x);
  if (score !== null) state.anomaly = round4(Math.max(state.anomaly ?? 0, score));
  delta.add(fields.samples, 1);
  delta.add(fields.sum, x);
  delta.add(fields.squares, x * x);
}

function countCell(cells: number[], cell: number): void {
  for (let i = 0; i < cells.length; i += 2) {
    if (cells[i] === cell) {
      cells[i + 1]! += 1;
      return;
    }
  }
  cells.push(cell, 1);
}

/** An applied event: novelty of its transition, anomaly of its value and gap, trajectory at its cell. */
export function scoreEvent(state: ScoreState, model: CohortModel, event: EventObservation, delta: ModelDelta): void {
  const action = modelAction(model, event.action);
  const prev = state.lastAction === null ? START : modelAction(model, state.lastAction);

  if (model.outcomes >= WARM_UP) {
    state.surprisal += stepSurprisal(model, prev, action);
    state.steps += 1;
    state.novelty = round4(state.surprisal / state.steps);
  }
  if (event.value !== undefined) sample(state, model, delta, "value", action, event.value);
  if (state.lastAt !== null) sample(state, model, delta, "gap", action, Math.max(0, event.at - state.lastAt) / 1000);

  if (prev === START) delta.add(OUTCOMES, 1);
  delta.add(transitionField(prev, action), 1);
  delta.add(outgoingField(prev), 1);
  countCell(state.cells, event.cell);
  state.lastAction = event.action;
  state.lastAt = event.at;
  state.trajectory = trajectoryAt(model, event.cell);
}

/**
 * A verdict: each action's count is a last sample for the anomaly model, the outcome's cells go to the
 * cohort's table under its verdict, and the trajectory is settled (1 CONFIRMED, 0 FAILED).
 */
export function scoreVerdict(
  state: ScoreState,
  model: CohortModel,
  verdict: VerdictObservation,
  delta: ModelDelta,
): void {
  // Actions pooled into OTHER add up, as one action would.
  const counts = new Map<string, number>();
  for (const action of Object.keys(verdict.counts).sort()) {
    const mapped = modelAction(model, action);
    counts.set(mapped, (counts.get(mapped) ?? 0) + (verdict.counts[action] ?? 0));
  }
  for (const [action, count] of counts) sample(state, model, delta, "count", action, count);
  delta.add(SETTLED, 1);
  const cells = state.cells;
  for (let i = 0; i < cells.length; i += 2) delta.add(field.cell(cells[i]!, verdict.confirmed), cells[i + 1]!);
  state.cells = [];
  state.trajectory = verdict.confirmed ? 1 : 0;
}
