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

/** Whether a field holds a float sum (HINCRBYFLOAT) rather than an integer count (HINCRBY). */
export function isFloatField(name: string): boolean {
  return name.startsWith("fs:") || name.startsWith("fq:");
}
