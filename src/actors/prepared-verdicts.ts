// Verdicts prepared ahead of their deadline: for an outcome the look-ahead loaded, the snapshot its forced
// verdict will write, packed before the deadline so that the settle at the deadline only copies it into
// the commit. An entry holds while nothing but time changes the outcome (the actor is its only writer, and
// forgets the entry whenever a batch changes the outcome or memory is in doubt).
import { dueAtOf } from "../outcomes/due-time.js";
import { packOutcome, unpackOutcome, type OutcomeRecord } from "../outcomes/outcome-record.js";
import { passTime } from "../outcomes/outcome-step.js";
import type { BatchScoring } from "./batch-scoring.js";

interface PreparedVerdict {
  /** The deadline: the settle passes time on the outcome to this instant, as the preparation did. */
  due: number;
  snapshot: Buffer;
  /** What the verdict made of the outcome, which the settle's own pass must reproduce for the snapshot to be its. */
  status: OutcomeRecord["status"];
  verdictAt: number | null;
  anomaly: number | null;
  trajectory: number | null;
  novelty: number | null;
}

export class PreparedVerdicts {
  private readonly byRef = new Map<string, PreparedVerdict>();
  private bytes = 0;

  /** At most `maxBytes` of snapshots are held per shard; outcomes beyond it settle the ordinary way. */
  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.byRef.size;
  }

  /**
   * Prepares the verdict an OPEN outcome reaches at its deadline, on a copy. Only a deadline (not an IDLE
   * expiry, which depends on when time is passed) and only a verdict without a charge (a charge's entries are
   * written in order with others) are prepared. `scoring` is a throwaway: its training is not committed.
   * `loaded`, the snapshot `record` was just unpacked from, spares packing it again for the copy.
   */
  prepare(ref: string, record: OutcomeRecord, scoring: BatchScoring, loaded?: Buffer): void {
    if (this.bytes >= this.maxBytes || this.byRef.has(ref)) return;
    const due = dueAtOf(record);
    if (due === null || due !== record.settlesAt) return;
    const copy = unpackOutcome(loaded ?? packOutcome(record));
    if (passTime(copy, due).charge || copy.status === "OPEN") return;
    scoring.verdict(copy);
    // A copy: msgpackr reuses its buffer for the next pack.
    const snapshot = Buffer.from(packOutcome(copy));
    const { status, verdictAt } = copy;
    const { anomaly, trajectory, novelty } = copy.scores;
    this.byRef.set(ref, { due, snapshot, status, verdictAt, anomaly, trajectory, novelty });
    this.bytes += snapshot.length;
  }

  /** The deadline of `ref`'s prepared verdict: the instant the settle is to pass time to on it. */
  dueOf(ref: string): number | undefined {
    return this.byRef.get(ref)?.due;
  }

  /**
   * Takes `ref`'s prepared snapshot once the settle has passed time to its deadline and scored the verdict
   * on `record`: it is `record` packed when both passes came out the same (the verdict's anomaly score reads
   * the cohort model, which may have learnt since), else undefined.
   */
  take(ref: string, record: OutcomeRecord): Buffer | undefined {
    const prepared = this.byRef.get(ref);
    if (!prepared) return undefined;
    this.forgetOne(ref, prepared);
    const { scores } = record;
    const same =
      record.status === prepared.status &&
      record.verdictAt === prepared.verdictAt &&
      record.clock === prepared.due &&
      scores.anomaly === prepared.anomaly &&
      scores.trajectory === prepared.trajectory &&
      scores.novelty === prepared.novelty;
    return same ? prepared.snapshot : undefined;
  }

  /** Outcomes a batch changed: their prepared verdicts no longer follow from what they are. */
  forget(refs: Iterable<string>): void {
    if (this.byRef.size === 0) return;
    for (const ref of refs) {
      const prepared = this.byRef.get(ref);
      if (prepared) this.forgetOne(ref, prepared);
    }
  }

  /** Prepared verdicts due by `until` that no settle took (their outcome left the due index otherwise). */
  forgetDueBy(until: number): void {
    for (const [ref, prepared] of this.byRef) if (prepared.due <= until) this.forgetOne(ref, prepared);
  }

  clear(): void {
    this.byRef.clear();
    this.bytes = 0;
  }

  private forgetOne(ref: string, prepared: PreparedVerdict): void {
    this.byRef.delete(ref);
    this.bytes -= prepared.snapshot.length;
  }
}
