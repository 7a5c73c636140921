// The one naming of a cohort model's counters, as fields of a Redis hash. Every field is a count or a sum,
// so partial models (one per shard) merge by adding field by field.

/** The Markov model's start state: the "previous action" of an outcome's first event. */
export const START = "^";
/** The pooled action of a cohort that already knows MAX_ACTIONS - 1 others. Never a valid action name. */
export const OTHER = "*";
/** At most this many distinct actions per cohort model, OTHER included. */
export const MAX_ACTIONS = 256;

/** Outcomes that started (took a first event) in the cohort. Integer. */
export const OUTCOMES = "n";
/** Outcomes of the cohort that reached a verdict. Integer. */
export const SETTLED = "s";

/** Which statistic of the anomaly model a feature samples. */
export type FeatureKind = "value" | "gap" | "count";
const FEATURE_LETTER: Record<FeatureKind, string> = { value: "v", gap: "g", count: "k" };

export const field = {
  /** Transitions from `prev` to `next`. Integer. */
  transition: (prev: string, next: string): string => `t:${prev}>${next}`,
  /** All transitions out of `prev`. Integer. */
  outgoing: (prev: string): string => `o:${prev}`,
  /** Events of outcomes that ended CONFIRMED (`confirmed`) or FAILED seen at a trajectory cell. Integer. */
  cell: (cell: number, confirmed: boolean): string => `${confirmed ? "c" : "f"}:${cell}`,
  /** Samples of a feature (integer), their sum and their sum of squares (floats). */
  samples: (feature: string): string => `fn:${feature}`,
  sum: (feature: string): string => `fs:${feature}`,
  squares: (feature: string): string => `fq:${feature}`,
};

/** A feature's name: which statistic, of which (cohort-mapped) action. */
export function featureOf(kind: FeatureKind, action: string): string {
  return `${FEATURE_LETTER[kind]}/${action}`;
}

/** The three fields of one feature. */
export interface FeatureFields {
  feature: string;
  samples: string;
  sum: string;
  squares: string;
}

/**
 * The field names are built once per action and kept: scoring names about ten fields per event, and a
 * freshly concatenated name costs a flattening and a hash at every map operation (it was two thirds of
 * the scoring time). Bounded: past CACHE_LIMIT names a cache starts over.
 */
const CACHE_LIMIT = 65_536;
const featureCache: Record<FeatureKind, Map<string, FeatureFields>> = {
  value: new Map(),
  gap: new Map(),
  count: new Map(),
};
const transitionCache = new Map<string, Map<string, string>>();
const outgoingCache = new Map<string, string>();
let transitionNames = 0;

function bounded<V>(cache: Map<string, V>): Map<string, V> {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  return cache;
}

export function featureFields(kind: FeatureKind, action: string): FeatureFields {
  let fields = featureCache[kind].get(action);
  if (!fields) {
    const feature = featureOf(kind, action);
    fields = { feature, samples: field.samples(feature), sum: field.sum(feature), squares: field.squares(feature) };
    bounded(featureCache[kind]).set(action, fields);
  }
  return fields;
}

export function transitionField(prev: string, next: string): string {
  let from = transitionCache.get(prev);
  if (!from) {
    from = new Map();
    bounded(transitionCache).set(prev, from);
  }
  let name = from.get(next);
  if (name === undefined) {
    if (++transitionNames > CACHE_LIMIT) {
      transitionCache.clear();
      transitionNames = 1;
      transitionCache.set(prev, from);
    }
    name = field.transition(prev, next);
    from.set(next, name);
  }
  return name;
}

export function outgoingField(prev: string): string {
  let name = outgoingCache.get(prev);
  if (name === undefined) {
    name = field.outgoing(prev);
    bounded(outgoingCache).set(prev, name);
  }
  return name;
}

/** Whether a field holds a float sum (HINCRBYFLOAT) rather than an integer count (HINCRBY). */
export function isFloatField(name: string): boolean {
  return name.startsWith("fs:") || name.startsWith("fq:");
}
