// The fold of one batch: a shard's decoded entries applied, in stream order, to the outcomes they name.
// No Redis here: the actor loads the records before and commits what the fold wrote after, so this is
// where the exactly-once rules live (redeliveries skipped by the outcome's last applied entry id, poison
// events set aside, terminal rejections dead-lettered) and where they are unit-tested.
import type { ArchivedOutcome } from "../archive-read/archived-outcomes.js";
import { storableText } from "../archive-db/storable-text.js";
import type { ChargeRecord } from "../outcomes/charge.js";
import type { DeadLetterRecord } from "../outcomes/dead-letter.js";
import { dueAtOf } from "../outcomes/due-time.js";
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import type { OutcomeCaps } from "../outcomes/outcome-caps.js";
import { applyEventToOutcome } from "../outcomes/outcome-step.js";
import { isTerminalRejection, terminalRejection, type TerminalRejection } from "../outcomes/terminal-rejection.js";
import { compareEntryIds } from "../streams/entry-id.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { scoresOf, type Scores } from "../scores/score-state.js";
import type { BatchScoring } from "./batch-scoring.js";
import type { DeliveryAttempts } from "./delivery-attempts.js";
import { deliveryOf, type DecodedEntry, type EntryEvent } from "./shard-entries.js";

/** Creates Variant B outcomes for unseen keys from their agents' contracts, for one batch. */
export interface OutcomeCreator {
  /** Starts the reads a creation from `event` will need, so the batch's creations share round trips. */
  prefetch(event: EventEnvelope): void;
  /** The new outcome, or the terminal reason it cannot be created; a throw is retried. */
  create(event: EventEnvelope): Promise<OutcomeRecord | TerminalRejection>;
}

/** Where the fold puts the batch's writes, in the order they happen; the actor turns them into one commit. */
export interface FoldWrites {
  /** The entry is done with: acknowledged by the commit. */
  ack(entryId: string): void;
  /** An applied event, for its outcome's event log. */
  log(ref: string, event: EventEnvelope, bytes: Buffer): void;
  /** An applied Variant B event is billable to the outcome's customer. */
  billable(event: EventEnvelope, customerKey: string): void;
  deadLetter(letter: DeadLetterRecord): void;
  /** The event's outcome does not exist: its idempotency keys are to expire unless the outcome appears. */
  orphan(event: EventEnvelope): void;
  /** A verdict confirmed a Variant B outcome. */
  charge(record: OutcomeRecord, charge: ChargeRecord): void;
}

/**
 * An outcome the batch changed. `dueBefore` is its due time as committed before the batch (the due-time
 * index holds it); undefined when unknown (created in the batch), which always writes the index.
 */
export interface ChangedOutcome {
  record: OutcomeRecord;
  created: boolean;
  dueBefore?: number | null;
  /** Its scores as committed before the batch (the score indexes hold them); undefined when created. */
  scoresBefore?: Scores;
  /** Whether it was OPEN before the batch (a created outcome was): a verdict now is the batch's. */
  openBefore: boolean;
  /** The record already packed (a verdict prepared ahead of its deadline, prepared-verdicts.ts). */
  snapshot?: Buffer | undefined;
}

export type FoldResult =
  /** `entries`: how many of the input's entries were folded (all, unless `full` ended the batch early). */
  | { ok: true; changed: Map<string, ChangedOutcome>; entries: number; events: number; oldestReceivedAt: number }
  /** An event threw (retryable): memory may be half-applied, so the whole batch is to be redone. */
  | { ok: false; entryId: string; index: number; error: unknown };

export interface FoldInput {
  entries: readonly DecodedEntry[];
  /** The batch's outcomes as committed, by ref; outcomes the fold creates are added, and all are mutated. */
  records: Map<string, OutcomeRecord>;
  /** Outcomes of the batch that Redis no longer holds because they moved to the archive, by ref. */
  archived: ReadonlyMap<string, ArchivedOutcome>;
  creator: OutcomeCreator;
  attempts: DeliveryAttempts;
  writes: FoldWrites;
  /** Scores each applied event and verdict, and collects what they teach the cohorts' models. */
  scoring: BatchScoring;
  /** What one outcome may store: an event that would pass a cap is dead-lettered OUTCOME_TOO_LARGE. */
  caps: OutcomeCaps;
  /**
   * Asked after each entry with the number of outcomes changed so far: true ends the batch there (the
   * later entries are left for another commit), so one commit's work in Redis stays bounded.
   */
  full?: (changedOutcomes: number) => boolean;
}

/** Forgets an outcome the batch created for `event`: its idempotency keys expire as an orphan's. */
function uncreate(records: Map<string, OutcomeRecord>, writes: FoldWrites, ref: string, event: EventEnvelope): void {
  records.delete(ref);
  writes.orphan(event);
}

export async function foldBatch(input: FoldInput): Promise<FoldResult> {
  const { entries, attempts, writes, full } = input;
  const changed = new Map<string, ChangedOutcome>();
  let events = 0;
  let oldestReceivedAt = Infinity;
  let folded = 0;
  for (const entry of entries) {
    if (folded > 0 && full?.(changed.size)) break;
    folded++;
    writes.ack(entry.id);
    events += entry.size;
    // Outcomes an earlier event of this entry already advanced: their lastEntryId is this entry's id now,
    // which for the others means the entry was applied before (a redelivery).
    const advanced = new Set<string>();
    for (const item of entry.events) {
      const { index, event } = item;
      if (event.receivedAt < oldestReceivedAt) oldestReceivedAt = event.receivedAt;
      const exhausted = attempts.takeExhausted(entry.id, index);
      if (exhausted) {
        // A poison event never blocks its shard: set aside with the error it kept raising.
        const source = deliveryOf(entry.id, index);
        writes.deadLetter({
          code: "PROCESSING_FAILED",
          message: exhausted.lastError,
          event,
          attempts: exhausted.count,
          source,
        });
        continue;
      }
      try {
        const target = await outcomeFor(input, entry.id, item, advanced);
        if (target) foldEvent(input, changed, entry.id, item, target);
      } catch (error) {
        return { ok: false, entryId: entry.id, index, error };
      }
    }
  }
  return { ok: true, changed, entries: folded, events, oldestReceivedAt };
}

/**
 * The outcome an event applies to, as held or newly created; undefined when there is none to apply it to:
 * a redelivery, an archived outcome, or one that does not exist and cannot be created.
 */
async function outcomeFor(
  { records, archived, creator, writes }: FoldInput,
  entryId: string,
  { index, event, ref }: EntryEvent,
  advanced: Set<string>,
): Promise<{ record: OutcomeRecord; created: boolean } | undefined> {
  const record = records.get(ref);
  if (record && !advanced.has(ref) && compareEntryIds(entryId, record.lastEntryId) <= 0) return undefined;
  advanced.add(ref);
  if (record) return { record, created: false };
  if (archived.has(ref)) {
    refuseArchived(writes, entryId, index, event, archived.get(ref)!);
    return undefined;
  }
  const creation = event.variant === "A" ? undefined : await creator.create(event);
  if (creation === undefined || isTerminalRejection(creation)) {
    reject(
      writes,
      entryId,
      index,
      event,
      creation ?? terminalRejection("OUTCOME_NOT_FOUND", `no outcome ${event.outcomeKey}`),
    );
    writes.orphan(event);
    return undefined;
  }
  records.set(ref, creation);
  return { record: creation, created: true };
}

/** Applies one event to its outcome: the change noted, the event logged, scored, billed, charged or refused. */
function foldEvent(
  { records, writes, scoring, caps }: FoldInput,
  changed: Map<string, ChangedOutcome>,
  entryId: string,
  { index, event, ref, bytes }: EntryEvent,
  { record, created }: { record: OutcomeRecord; created: boolean },
): void {
  // The outcome's first change in this batch records its due time as committed (the index holds
  // it), taken before the event moves it; a created outcome has none yet.
  const change =
    changed.get(ref) ??
    (created
      ? { record, created, openBefore: true }
      : {
          record,
          created,
          dueBefore: dueAtOf(record),
          scoresBefore: scoresOf(record.scores),
          openBefore: record.status === "OPEN",
        });
  const wasOpen = record.status === "OPEN";
  const effect = applyEventToOutcome(record, event, entryId, { caps, envelopeBytes: bytes.length });
  // Scored before it trains; a rejected event neither scores nor trains.
  if (effect.logged) scoring.event(record, event);
  if (wasOpen && record.status !== "OPEN") scoring.verdict(record);
  // A key's first event that is too large creates nothing: the outcome is left as if never sent.
  if (created && effect.rejection?.code === "OUTCOME_TOO_LARGE") uncreate(records, writes, ref, event);
  else if (effect.changed || created) changed.set(ref, change);
  if (effect.logged) {
    writes.log(ref, event, bytes);
    // Idempotent retries never get here twice, so an applied event is counted once.
    if (record.origin.kind === "agent") writes.billable(event, record.origin.customerKey);
  }
  if (effect.rejection) reject(writes, entryId, index, event, effect.rejection);
  if (effect.charge) writes.charge(record, effect.charge);
}

/** Dead-letters an event for a terminal reason: retrying it would fail the same way. */
function reject(
  writes: FoldWrites,
  entryId: string,
  index: number,
  event: EventEnvelope,
  rejection: TerminalRejection,
): void {
  writes.deadLetter({
    code: rejection.code,
    message: rejection.message,
    event,
    attempts: 1,
    source: deliveryOf(entryId, index),
  });
}

/**
 * An archived outcome is settled for good: an event to it is what it was before the move, a duplicate
 * (its idempotency key names an applied event) dropped or a late event dead-lettered; never a reopening.
 * Its idempotency hash, claimed again by the enqueue, expires like an orphan's.
 */
function refuseArchived(
  writes: FoldWrites,
  entryId: string,
  index: number,
  event: EventEnvelope,
  outcome: ArchivedOutcome,
): void {
  writes.orphan(event);
  if (event.idempotencyKey !== undefined && outcome.idempotencyKeys.has(storableText(event.idempotencyKey))) return;
  reject(
    writes,
    entryId,
    index,
    event,
    terminalRejection("OUTCOME_NOT_OPEN", `outcome ${event.outcomeKey} is ${outcome.status}`),
  );
}
