// Scoring an outcome: which cohort it learns from (its task, or its agent, within its account) and what
// of an applied event or a verdict its scores read. The models and the arithmetic are src/scores'.
import { progressAt } from "../condition/index.js";
import type { CohortModel } from "../scores/cohort-model.js";
import type { ModelDelta } from "../scores/model-delta.js";
import { scoreEvent, scoreVerdict } from "../scores/scoring.js";
import { trajectoryCell } from "../scores/trajectory-cell.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { OutcomeRecord } from "./outcome-record.js";

/** Outcomes that learn from one another: a task's (Variant A) or an agent's (Variant B), in one account. */
export interface Cohort {
  accountId: string;
  kind: "task" | "agent";
  key: string;
}

export function cohortOf(record: OutcomeRecord): Cohort {
  const origin = record.origin;
  return origin.kind === "task"
    ? { accountId: record.accountId, kind: "task", key: origin.taskKey }
    : { accountId: record.accountId, kind: "agent", key: origin.agentKey };
}

/** One string per cohort, for maps. */
export function cohortId(cohort: Cohort): string {
  return `${cohort.accountId}\n${cohort.kind}\n${cohort.key}`;
}

/**
 * A value the anomaly model can sample: finite, and small enough that its square stays finite (Redis
 * refuses a float increment that would make a sum infinite).
 */
function sampleValue(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= 1e100 ? value : undefined;
}

/** Scores an event `applyEventToOutcome` just applied, at the instant it was applied, and trains `delta` with it. */
export function scoreAppliedEvent(
  record: OutcomeRecord,
  event: EventEnvelope,
  model: CohortModel,
  delta: ModelDelta,
): void {
  const at = record.clock;
  const progress = progressAt(compiledCondition(record.condition), record.conditionState, at);
  const cell = trajectoryCell(progress, record.createdAt, record.settlesAt, at);
  scoreEvent(
    record.scores,
    model,
    { action: event.action, value: sampleValue(event.properties?.value), at, cell },
    delta,
  );
}

/** Scores and trains the verdict an outcome just reached. */
export function scoreOutcomeVerdict(record: OutcomeRecord, model: CohortModel, delta: ModelDelta): void {
  const counts: Record<string, number> = {};
  for (const action in record.observations) counts[action] = record.observations[action]!.count;
  scoreVerdict(record.scores, model, { confirmed: record.status === "CONFIRMED", counts }, delta);
}
