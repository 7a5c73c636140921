// The caps on what one outcome stores: an event that would pass one is dead-lettered OUTCOME_TOO_LARGE
// instead of applied, so no outcome grows a snapshot that every later commit, load and read must carry.
import { packedBytes } from "../codec/msgpack.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { OutcomeRecord } from "./outcome-record.js";
import { terminalRejection, type TerminalRejection } from "./terminal-rejection.js";

/** Sizes are stored bytes: the msgpack the snapshot and the event log hold (docs/configuration.md, Outcome caps). */
export interface OutcomeCaps {
  /** Distinct actions an outcome observes (its `observations`). @default 256 */
  maxActions: number;
  /** Stored bytes of an event's `properties.value`, which an observation keeps as `last_value`. @default 16 KiB */
  maxValueBytes: number;
  /** Stored bytes of an event's `properties`, kept whole in its outcome's event log. @default 256 KiB */
  maxEventBytes: number;
  /** Stored bytes of an outcome's snapshot, rewritten by every commit that changes the outcome. @default 64 KiB */
  maxSnapshotBytes: number;
}

export const DEFAULT_OUTCOME_CAPS: Readonly<OutcomeCaps> = Object.freeze({
  maxActions: 256,
  maxValueBytes: 16 * 1024,
  maxEventBytes: 256 * 1024,
  maxSnapshotBytes: 64 * 1024,
});

/** The caps, and the size of the packed envelope the event came in (an upper bound of any part of it). */
export interface EventLimits {
  caps: OutcomeCaps;
  envelopeBytes: number;
}

function tooLarge(what: string, bytes: number, limit: number, setting: string): TerminalRejection {
  return terminalRejection("OUTCOME_TOO_LARGE", `${what} ${bytes} bytes stored, over the cap of ${limit} (${setting})`);
}

/** Stored bytes of `value`, measured only when the whole envelope is over `limit` (it holds the value). */
function storedOver(value: unknown, envelopeBytes: number, limit: number): number | undefined {
  if (envelopeBytes <= limit) return undefined;
  const bytes = packedBytes(value);
  return bytes > limit ? bytes : undefined;
}

/** The cap an event would pass by its own size or by a new action, checked before anything is applied. */
export function eventOverCap(
  record: OutcomeRecord,
  event: EventEnvelope,
  { caps, envelopeBytes }: EventLimits,
): TerminalRejection | undefined {
  const properties = event.properties;
  if (properties) {
    const eventBytes = storedOver(properties, envelopeBytes, caps.maxEventBytes);
    if (eventBytes !== undefined)
      return tooLarge("event properties take", eventBytes, caps.maxEventBytes, "VERDICT_OUTCOME_MAX_EVENT_BYTES");
    const valueBytes =
      "value" in properties ? storedOver(properties.value, envelopeBytes, caps.maxValueBytes) : undefined;
    if (valueBytes !== undefined)
      return tooLarge("properties.value takes", valueBytes, caps.maxValueBytes, "VERDICT_OUTCOME_MAX_VALUE_BYTES");
  }
  if (!Object.hasOwn(record.observations, event.action) && Object.keys(record.observations).length >= caps.maxActions) {
    return terminalRejection(
      "OUTCOME_TOO_LARGE",
      `action ${event.action} is new and the outcome has ${caps.maxActions} distinct actions, the cap (VERDICT_OUTCOME_MAX_ACTIONS)`,
    );
  }
  return undefined;
}

/** The outcome's snapshot, with room for the event's scores, would pass its cap: what the event is dead-lettered with. */
export function snapshotOverCap(bytes: number, caps: OutcomeCaps): TerminalRejection {
  return tooLarge(
    "the outcome's snapshot with this event would take",
    bytes,
    caps.maxSnapshotBytes,
    "VERDICT_OUTCOME_MAX_SNAPSHOT_BYTES",
  );
}

/**
 * Room for the fixed-size fields an event or time passing can widen: each number of the record, its
 * condition state and its attribution tally from a 1-byte integer to a 9-byte float, the status and
 * verdict, a longer last entry id, one more trajectory cell; 1 KiB is several times their sum.
 */
const FIXED_ROOM = 1024;

/**
 * The most the scores of one applied event add to a snapshot (its action as the previous action; the rest
 * is fixed-size), given the event's packed envelope size, which bounds its action's.
 */
export function scoreRoom(envelopeBytes: number): number {
  return envelopeBytes + FIXED_ROOM;
}

/**
 * The most applying one event and scoring it can add to an outcome's snapshot, from the packed envelope's
 * size, which bounds every part of the event: the observation (action and value), each fact slot the
 * condition reads (a part of the properties, wrapped), each count and memory slot widened, and the scores.
 */
export function snapshotRoom(record: OutcomeRecord, envelopeBytes: number): number {
  const compiled = compiledCondition(record.condition);
  const slots = compiled.countSlots + compiled.factSlots + compiled.memorySlots;
  return (1 + compiled.factSlots) * envelopeBytes + 9 * slots + scoreRoom(envelopeBytes) + FIXED_ROOM;
}
