// The outcome's transitions as pure functions: fold one event in, or let time pass. No I/O: the shard actor
// loads and commits; these decide.
import { advanceTime, applyEvent, settle, type Verdict } from "../condition/index.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { applyAttribution, chargeFor, type ChargeRecord } from "./charge.js";
import { compiledCondition } from "./compiled-conditions.js";
import { eventOverCap, scoreRoom, snapshotOverCap, snapshotRoom, type EventLimits } from "./outcome-caps.js";
import {
  boundSnapshotBytes,
  packOutcome,
  snapshotBytesAtMost,
  unpackOutcome,
  type OutcomeRecord,
} from "./outcome-record.js";
import { terminalRejection, type TerminalRejection } from "./terminal-rejection.js";

/** What one event did: the outcome may change and the event may still be rejected (e.g. it arrived after a verdict due earlier). */
export interface EventEffect {
  /** The outcome changed and must be snapshotted. */
  changed: boolean;
  /** The event was applied and belongs in the outcome's event log. */
  logged: boolean;
  rejection?: TerminalRejection;
  /** Written when this event's processing confirmed a Variant B outcome. */
  charge?: ChargeRecord;
}

const NOT_OPEN = (record: OutcomeRecord): TerminalRejection =>
  terminalRejection("OUTCOME_NOT_OPEN", `outcome ${record.key} is ${record.status}`);

/** Variant B identity rules: the key's customer and agent never change, and a task outcome takes no Variant B event. */
function identityMismatch(record: OutcomeRecord, event: EventEnvelope): TerminalRejection | undefined {
  if (event.variant !== "B") return undefined;
  const origin = record.origin;
  if (origin.kind === "task") {
    return terminalRejection(
      "OUTCOME_IDENTITY_MISMATCH",
      `outcome ${record.key} was opened from task ${origin.taskKey}`,
    );
  }
  if (event.customerKey !== origin.customerKey) {
    return terminalRejection(
      "OUTCOME_IDENTITY_MISMATCH",
      `outcome ${record.key} belongs to customer ${origin.customerKey}`,
    );
  }
  if (event.agentKey !== undefined && event.agentKey !== origin.agentKey) {
    return terminalRejection("OUTCOME_IDENTITY_MISMATCH", `outcome ${record.key} belongs to agent ${origin.agentKey}`);
  }
  return undefined;
}

/** Records a verdict; a confirmed Variant B outcome yields its one charge. */
function conclude(record: OutcomeRecord, verdict: Verdict): ChargeRecord | undefined {
  record.status = verdict.kind === "confirm" ? "CONFIRMED" : "FAILED";
  record.verdictAt = verdict.at;
  return record.status === "CONFIRMED" ? chargeFor(record) : undefined;
}

/**
 * Lets time pass up to `until`: IDLE expiries (quiescence) and settlement at `settles_at`. Returns the
 * charge if a verdict confirmed a Variant B outcome; `record.status` tells whether a verdict was reached.
 */
export function passTime(record: OutcomeRecord, until: number): { changed: boolean; charge?: ChargeRecord } {
  if (record.status !== "OPEN") return { changed: false };
  // Time never runs back: an outcome already brought past `until` (by an event stamped later) is taken at
  // its own clock, where a settlement due by then (a deadline an event set in the past) still applies.
  until = Math.max(until, record.clock);
  record.clock = until;
  const compiled = compiledCondition(record.condition);
  const settlesAt = record.settlesAt;
  let verdict: Verdict | null;
  if (settlesAt !== null && settlesAt <= until) {
    verdict =
      advanceTime(compiled, record.conditionState, settlesAt) ?? settle(compiled, record.conditionState, settlesAt);
  } else {
    verdict = advanceTime(compiled, record.conditionState, until);
  }
  if (!verdict) return { changed: true };
  const charge = conclude(record, verdict);
  return charge ? { changed: true, charge } : { changed: true };
}

/** The next `settles_at` after an event: its own deadline, else event time plus the settlement period. */
function nextSettlesAt(record: OutcomeRecord, event: EventEnvelope, at: number): number | null {
  const deadline = event.properties?.settles_at;
  if (typeof deadline === "string") return Date.parse(deadline);
  if (record.settlementPeriodMs !== null) return at + record.settlementPeriodMs;
  // No period: keep a deadline an earlier event set (or null).
  return record.settlesAt;
}

/**
 * Folds one event into an existing outcome, in the order the spec gives: identity, open, then apply, which
 * the outcome's caps may refuse (OUTCOME_TOO_LARGE: nothing of the event applied; time still passes).
 */
export function applyEventToOutcome(
  record: OutcomeRecord,
  event: EventEnvelope,
  entryId: string,
  limits: EventLimits,
): EventEffect {
  const mismatch = identityMismatch(record, event);
  if (mismatch) return { changed: false, logged: false, rejection: mismatch };
  if (record.status !== "OPEN") return { changed: false, logged: false, rejection: NOT_OPEN(record) };

  // Raised before anything changes, by the most time passing, the event and its scores can add.
  const atMost = snapshotBytesAtMost(record) + snapshotRoom(record, limits.envelopeBytes);
  boundSnapshotBytes(record, atMost);
  const at = Math.max(event.receivedAt, record.clock);
  // A verdict due before this event (IDLE expiry first at the same instant, or settlement) happens first.
  const passed = passTime(record, at);
  if (record.status !== "OPEN") {
    const effect: EventEffect = { changed: true, logged: false, rejection: NOT_OPEN(record) };
    if (passed.charge) effect.charge = passed.charge;
    return effect;
  }
  const over = eventOverCap(record, event, limits);
  if (over) return { changed: true, logged: false, rejection: over };
  return atMost <= limits.caps.maxSnapshotBytes
    ? applyOpen(record, event, entryId, at)
    : applyMeasured(record, event, entryId, at, limits);
}

/**
 * Near the snapshot cap the bound is not enough: the event is applied, the snapshot measured, and the
 * outcome put back as it was when it would pass the cap (room is left for the scores, applied after).
 */
function applyMeasured(
  record: OutcomeRecord,
  event: EventEnvelope,
  entryId: string,
  at: number,
  limits: EventLimits,
): EventEffect {
  const before = packOutcome(record);
  const effect = applyOpen(record, event, entryId, at);
  const bytes = packOutcome(record).length + scoreRoom(limits.envelopeBytes);
  if (bytes <= limits.caps.maxSnapshotBytes) {
    boundSnapshotBytes(record, bytes);
    return effect;
  }
  Object.assign(record, unpackOutcome(before));
  boundSnapshotBytes(record, before.length);
  return { changed: true, logged: false, rejection: snapshotOverCap(bytes, limits.caps) };
}

/** Applies an event to an open outcome that time has been brought to `at`. */
function applyOpen(record: OutcomeRecord, event: EventEnvelope, entryId: string, at: number): EventEffect {
  const compiled = compiledCondition(record.condition);
  // Variant B conditions read only `value`; other properties stay on the event log.
  const properties =
    record.origin.kind === "agent"
      ? event.properties && "value" in event.properties
        ? { value: event.properties.value }
        : {}
      : event.properties;
  observe(record, event, at);
  if (record.origin.kind === "agent") applyAttribution(record.origin.attribution, event.properties?.attribution);
  record.lastEntryId = entryId;
  record.settlesAt = nextSettlesAt(record, event, at);

  const verdict = applyEvent(compiled, record.conditionState, { action: event.action, properties, at });
  const effect: EventEffect = { changed: true, logged: true };
  if (verdict) {
    const charge = conclude(record, verdict);
    if (charge) effect.charge = charge;
  }
  return effect;
}

function observe(record: OutcomeRecord, event: EventEnvelope, at: number): void {
  const observation = (record.observations[event.action] ??= {
    count: 0,
    hasValue: false,
    lastValue: null,
    lastAt: at,
  });
  observation.count += 1;
  observation.lastAt = at;
  if (event.properties && "value" in event.properties) {
    observation.hasValue = true;
    observation.lastValue = event.properties.value ?? null;
  }
}
