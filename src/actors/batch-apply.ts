// A read's entries applied: decoded once, loaded a run at a time, folded and committed in batches of whole
// entries whose writes stay within the commit budget (commit-budget.ts), with the delivery attempts, the
// metrics and the traces of what each committed batch applied.
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { tracingEnabled } from "../telemetry/tracing.js";
import { linkBatchToRequests, traceAppliedEvents } from "./actor-tracing.js";
import type { ActorServices, ActorTuning } from "./actor-deps.js";
import type { BatchCommit } from "./batch-commit.js";
import { foldBatch, type ChangedOutcome, type FoldResult } from "./batch-fold.js";
import type { BatchScoring } from "./batch-scoring.js";
import { commitFull } from "./commit-budget.js";
import type { CommitStaging } from "./commit-staging.js";
import type { DeliveryAttempts } from "./delivery-attempts.js";
import type { FencedCommit } from "./fenced-commit.js";
import type { BatchInputs, OutcomeLoader } from "./outcome-loader.js";
import {
  decodeEntry,
  deliveryOf,
  runsOf,
  type DecodedEntry,
  type MalformedEntry,
  type StreamEntry,
} from "./shard-entries.js";

export interface BatchApplierDeps {
  shard: number;
  services: Pick<ActorServices, "hot" | "logger" | "metrics" | "clock">;
  tuning: Pick<ActorTuning, "outcomeCaps" | "commitMaxWrites">;
  attempts: DeliveryAttempts;
  loader: OutcomeLoader;
  staging: CommitStaging;
  commits: FencedCommit;
  malformed: MalformedEntry;
  /** A scoring of the worker's cohort models for one commit. */
  scoring(): BatchScoring;
  /** Stages the changed outcomes and runs the fenced commit (shared with settles); false when nothing was committed. */
  commitChanges(
    commit: BatchCommit,
    changed: ReadonlyMap<string, ChangedOutcome>,
    scoring: BatchScoring,
    records: ReadonlyMap<string, OutcomeRecord>,
  ): Promise<boolean>;
  /** Memory may be ahead of Redis: the actor reads its pending entries again. */
  retry(): void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class BatchApplier {
  constructor(private readonly deps: BatchApplierDeps) {}

  /** Commits a read's entries in runs of about `runEvents` events; stops at a batch that did not commit. */
  async apply(raw: readonly StreamEntry[], runEvents: number): Promise<void> {
    const entries = raw.map((entry) => decodeEntry(entry, this.deps.malformed));
    if (tracingEnabled()) linkBatchToRequests(entries);
    for (const run of runsOf(entries, runEvents)) {
      if (!(await this.applyRun(run))) return;
    }
  }

  /**
   * Loads a run's outcomes once and commits its entries in as many batches as the budget makes. After a
   * batch commits, memory is what Redis holds, so the loaded outcomes serve the next batch as they are.
   */
  private async applyRun(entries: DecodedEntry[]): Promise<boolean> {
    const inputs = await this.deps.loader.loadBatch(entries);
    for (let rest = entries; rest.length > 0;) {
      const committed = await this.applyBatch(rest, inputs);
      if (committed === 0) return false;
      rest = rest.slice(committed);
    }
    return true;
  }

  /** Folds entries until the commit is full and commits them with their XACK; the entries committed, 0 when none. */
  private async applyBatch(entries: DecodedEntry[], { records, archived, creator }: BatchInputs): Promise<number> {
    const { shard, staging, attempts } = this.deps;
    const started = performance.now();
    const scoring = this.deps.scoring();
    const commit = this.deps.commits.begin();
    const deadLettered = new Map<string, number>();
    const writes = staging.foldWrites(commit, deadLettered, records);
    const { outcomeCaps: caps, commitMaxWrites } = this.deps.tuning;
    const full = (changed: number): boolean => commitFull(commit, changed, commitMaxWrites);
    const fold = await foldBatch({ entries, records, archived, creator, attempts, writes, scoring, caps, full });
    if (!fold.ok) {
      await this.foldFailed(fold, records);
      return 0;
    }
    const folded = fold.entries === entries.length ? entries : entries.slice(0, fold.entries);
    staging.ingestCounts(commit, folded);
    if (!(await this.deps.commitChanges(commit, fold.changed, scoring, records))) {
      this.deps.retry();
      return 0;
    }
    attempts.committed(folded);
    if (tracingEnabled()) traceAppliedEvents(shard, folded, records, started);
    this.recordBatch(fold, deadLettered, started);
    return fold.entries;
  }

  /**
   * An event threw (unexpected): give up the whole batch (memory may be half-applied), count the attempt,
   * back off, and redo it from the snapshots; after the last attempt the event is dead-lettered instead.
   */
  private async foldFailed(
    fold: Extract<FoldResult, { ok: false }>,
    records: ReadonlyMap<string, OutcomeRecord>,
  ): Promise<void> {
    const { shard, services, attempts } = this.deps;
    const attempt = attempts.recordFailure(deliveryOf(fold.entryId, fold.index), fold.error);
    services.logger.warn(
      { err: fold.error, shard, entry: fold.entryId, index: fold.index, attempt },
      "event processing failed",
    );
    for (const ref of records.keys()) services.hot.delete(shard, ref);
    this.deps.retry();
    await sleep(Math.min(2000, 50 * 2 ** attempt));
  }

  private recordBatch(
    fold: Extract<FoldResult, { ok: true }>,
    deadLettered: ReadonlyMap<string, number>,
    started: number,
  ): void {
    const { metrics, clock } = this.deps.services;
    metrics.eventsProcessed.inc(fold.events);
    for (const [code, n] of deadLettered) metrics.deadLetters.inc({ code }, n);
    metrics.batchSeconds.observe((performance.now() - started) / 1000);
    // Receipt is stamped with the same business clock (wall time outside tests).
    if (fold.oldestReceivedAt !== Infinity)
      metrics.eventLagSeconds.observe(Math.max(0, clock() - fold.oldestReceivedAt) / 1000);
  }
}
