// A cohort's merged model, read-only, as scoring uses it: the per-shard partial hashes added field by field,
// then held to MAX_ACTIONS distinct actions (shards may each admit a new action before they see the
// others', so the sum can overshoot; the least frequent are pooled into OTHER here).
import { field, MAX_ACTIONS, OTHER, OUTCOMES, SETTLED, START } from "./model-fields.js";

export interface FeatureStats {
  samples: number;
  sum: number;
  squares: number;
}

export interface CellCounts {
  confirmed: number;
  failed: number;
}

export interface CohortModel {
  /** Outcomes that started in the cohort: the novelty warm-up. */
  outcomes: number;
  /** Outcomes that reached a verdict: the trajectory warm-up. */
  settled: number;
  /** Distinct actions the cohort has done (OTHER among them once anything was pooled). */
  actions: ReadonlySet<string>;
  /** By field.transition(prev, next). */
  transitions: ReadonlyMap<string, number>;
  /** By previous action (or START). */
  outgoing: ReadonlyMap<string, number>;
  cells: ReadonlyMap<number, CellCounts>;
  /** By feature name (featureOf). */
  features: ReadonlyMap<string, FeatureStats>;
}

export const EMPTY_MODEL: CohortModel = Object.freeze({
  outcomes: 0,
  settled: 0,
  actions: new Set<string>(),
  transitions: new Map<string, number>(),
  outgoing: new Map<string, number>(),
  cells: new Map<number, CellCounts>(),
  features: new Map<string, FeatureStats>(),
});

/** The action a cohort model knows `action` as: itself, or OTHER once the cohort is full. */
export function modelAction(model: CohortModel, action: string): string {
  if (model.actions.has(action)) return action;
  const known = model.actions.size - (model.actions.has(OTHER) ? 1 : 0);
  return known < MAX_ACTIONS - 1 ? action : OTHER;
}

/** Adds partial models (HGETALL replies of the shards' hashes) into one merged model. */
export function mergeModels(partials: readonly Readonly<Record<string, string>>[]): CohortModel {
  const totals = new Map<string, number>();
  for (const partial of partials) {
    for (const name in partial) {
      const n = Number(partial[name]);
      if (Number.isFinite(n)) totals.set(name, (totals.get(name) ?? 0) + n);
    }
  }
  const rename = poolRareActions(totals);
  const actions = new Set<string>();
  const transitions = new Map<string, number>();
  const outgoing = new Map<string, number>();
  const cells = new Map<number, CellCounts>();
  const features = new Map<string, FeatureStats>();
  const add = (map: Map<string, number>, key: string, n: number): void => {
    map.set(key, (map.get(key) ?? 0) + n);
  };
  for (const [name, n] of totals) {
    const colon = name.indexOf(":");
    const kind = name.slice(0, colon);
    const rest = name.slice(colon + 1);
    if (kind === "t") {
      const [prev = "", next = ""] = rest.split(">");
      const to = rename(next);
      actions.add(to);
      add(transitions, field.transition(prev === START ? START : rename(prev), to), n);
    } else if (kind === "o") {
      add(outgoing, rest === START ? START : rename(rest), n);
    } else if (kind === "c" || kind === "f") {
      const cell = Number(rest);
      const counts = cells.get(cell) ?? { confirmed: 0, failed: 0 };
      if (kind === "c") counts.confirmed += n;
      else counts.failed += n;
      cells.set(cell, counts);
    } else if (kind === "fn" || kind === "fs" || kind === "fq") {
      const slash = rest.indexOf("/");
      const feature = `${rest.slice(0, slash)}/${rename(rest.slice(slash + 1))}`;
      const stats = features.get(feature) ?? { samples: 0, sum: 0, squares: 0 };
      if (kind === "fn") stats.samples += n;
      else if (kind === "fs") stats.sum += n;
      else stats.squares += n;
      features.set(feature, stats);
    }
  }
  return {
    outcomes: totals.get(OUTCOMES) ?? 0,
    settled: totals.get(SETTLED) ?? 0,
    actions,
    transitions,
    outgoing,
    cells,
    features,
  };
}

/**
 * Keeps the MAX_ACTIONS - 1 actions most often transitioned to (ties by name, so every worker pools the
 * same ones) and maps the rest to OTHER.
 */
function poolRareActions(totals: ReadonlyMap<string, number>): (action: string) => string {
  const frequency = new Map<string, number>();
  for (const [name, n] of totals) {
    if (!name.startsWith("t:")) continue;
    const next = name.slice(name.indexOf(">") + 1);
    frequency.set(next, (frequency.get(next) ?? 0) + n);
  }
  frequency.delete(OTHER);
  if (frequency.size <= MAX_ACTIONS - 1) return (action) => action;
  const kept = new Set(
    [...frequency]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, MAX_ACTIONS - 1)
      .map(([action]) => action),
  );
  return (action) => (kept.has(action) ? action : OTHER);
}
