// Turns a stored outcome into the spec's Outcome object, evaluated at read time (or frozen at its verdict).
import { evaluate } from "../condition/index.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { OutcomeRecord, OutcomeStatus } from "./outcome-record.js";

export interface ObservationView {
  count: number;
  last_value: unknown;
  last_at: string;
}

/** The Outcome resource exactly as `GET /v1/outcomes/{key}` returns it. */
export interface OutcomeView {
  key: string;
  status: OutcomeStatus;
  goal: string | null;
  progress: number;
  settles_at: string | null;
  condition: string;
  observations: Record<string, ObservationView>;
  scores: { trajectory: number | null; anomaly: number | null; novelty: number | null };
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function presentOutcome(record: OutcomeRecord, now: number): OutcomeView {
  const compiled = compiledCondition(record.condition);
  // A terminal outcome is frozen at its verdict; an open one is read as of now (never before its last point).
  const at = record.verdictAt ?? now;
  const evaluation = evaluate(compiled, record.conditionState, at);
  const observations: Record<string, ObservationView> = {};
  for (const [action, observation] of Object.entries(record.observations)) {
    observations[action] = {
      count: observation.count,
      last_value: observation.hasValue ? observation.lastValue : null,
      last_at: iso(observation.lastAt),
    };
  }
  return {
    key: record.key,
    status: record.status,
    goal: record.goal,
    progress: record.status === "CONFIRMED" ? 1 : evaluation.progress,
    // "When the monitor next forces a verdict": a terminal outcome has none.
    settles_at: record.status === "OPEN" && record.settlesAt !== null ? iso(record.settlesAt) : null,
    condition: evaluation.annotated,
    observations,
    // As the shard actor last scored the outcome (at its latest event or its verdict).
    scores: { trajectory: record.scores.trajectory, anomaly: record.scores.anomaly, novelty: record.scores.novelty },
  };
}
