// The scores of one batch: every outcome is scored against its cohort's merged model as the worker holds
// it, and what the batch teaches is summed per cohort, to be written with the batch's commit (so a batch
// that does not commit teaches nothing, and a redelivered entry, skipped by the fold, nothing twice).
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { cohortOf, scoreAppliedEvent, scoreOutcomeVerdict, type Cohort } from "../outcomes/outcome-scores.js";
import type { CohortModel } from "../scores/cohort-model.js";
import { ModelDelta } from "../scores/model-delta.js";
import type { EventEnvelope } from "../streams/event-envelope.js";

/** The distinct cohorts of some outcomes, found through their own strings (no id built per outcome). */
export function distinctCohorts(records: Iterable<OutcomeRecord>): Cohort[] {
  const seen = { task: new Map<string, Set<string>>(), agent: new Map<string, Set<string>>() };
  const cohorts: Cohort[] = [];
  for (const record of records) {
    const origin = record.origin;
    const key = origin.kind === "task" ? origin.taskKey : origin.agentKey;
    let keys = seen[origin.kind].get(record.accountId);
    if (!keys) {
      keys = new Set();
      seen[origin.kind].set(record.accountId, keys);
    }
    if (keys.has(key)) continue;
    keys.add(key);
    cohorts.push(cohortOf(record));
  }
  return cohorts;
}

interface Trained {
  model: CohortModel;
  delta: ModelDelta;
}

export class BatchScoring {
  /** What the batch teaches each cohort. */
  readonly deltas: { cohort: Cohort; delta: ModelDelta }[] = [];
  /**
   * The batch's cohorts by account, kind and key: the record's own strings look them up, with no id
   * built per event (a batch's events mostly belong to a few cohorts).
   */
  private readonly cohorts = {
    task: new Map<string, Map<string, Trained>>(),
    agent: new Map<string, Map<string, Trained>>(),
  };

  constructor(private readonly modelOf: (cohort: Cohort) => CohortModel) {}

  private train(record: OutcomeRecord): Trained {
    const origin = record.origin;
    const key = origin.kind === "task" ? origin.taskKey : origin.agentKey;
    const byAccount = this.cohorts[origin.kind];
    let byKey = byAccount.get(record.accountId);
    if (!byKey) {
      byKey = new Map();
      byAccount.set(record.accountId, byKey);
    }
    let found = byKey.get(key);
    if (!found) {
      const cohort = cohortOf(record);
      const delta = new ModelDelta();
      this.deltas.push({ cohort, delta });
      found = { model: this.modelOf(cohort), delta };
      byKey.set(key, found);
    }
    return found;
  }

  /** An event the outcome applied. */
  event(record: OutcomeRecord, event: EventEnvelope): void {
    const { model, delta } = this.train(record);
    scoreAppliedEvent(record, event, model, delta);
  }

  /** A verdict the outcome reached. */
  verdict(record: OutcomeRecord): void {
    const { model, delta } = this.train(record);
    scoreOutcomeVerdict(record, model, delta);
  }
}
