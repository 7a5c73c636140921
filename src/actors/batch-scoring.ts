// The scores of one batch: every outcome is scored against its cohort's merged model as the worker holds
// it, and what the batch teaches is summed per cohort, to be written with the batch's commit (so a batch
// that does not commit teaches nothing, and a redelivered entry, skipped by the fold, nothing twice).
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { cohortId, cohortOf, scoreAppliedEvent, scoreOutcomeVerdict, type Cohort } from "../outcomes/outcome-scores.js";
import type { CohortModel } from "../scores/cohort-model.js";
import { ModelDelta } from "../scores/model-delta.js";
import type { EventEnvelope } from "../streams/event-envelope.js";

export class BatchScoring {
  /** By cohortId: what the batch teaches each cohort. */
  readonly deltas = new Map<string, { cohort: Cohort; delta: ModelDelta }>();
  /** Each outcome's model and delta, found once per batch: an outcome has many events in a batch. */
  private readonly byRecord = new Map<OutcomeRecord, { model: CohortModel; delta: ModelDelta }>();

  constructor(private readonly modelOf: (cohort: Cohort) => CohortModel) {}

  private train(record: OutcomeRecord): { model: CohortModel; delta: ModelDelta } {
    let found = this.byRecord.get(record);
    if (!found) {
      const cohort = cohortOf(record);
      const id = cohortId(cohort);
      let entry = this.deltas.get(id);
      if (!entry) {
        entry = { cohort, delta: new ModelDelta() };
        this.deltas.set(id, entry);
      }
      found = { model: this.modelOf(cohort), delta: entry.delta };
      this.byRecord.set(record, found);
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
