// What the shard actor reads from its stream: entries (one per ingress write) holding packed events, and
// the deliveries they make up, "<entry id>/<index in the entry>".
import { outcomeRef } from "../outcomes/outcome-ref.js";
import { unpackEnvelope, type EventEnvelope } from "../streams/event-envelope.js";
import { ENTRY_FIELD, entryEvents } from "../streams/stream-entry.js";
import type { RawEntry } from "./shard-reader.js";

export interface StreamEntry {
  id: string;
  /** The entry's packed envelopes, in send order; empty when there is nothing to apply. */
  events: Buffer[];
}

/** An event of an entry, decoded; `bytes` is its packed envelope as the ingress wrote it. */
export interface EntryEvent {
  index: number;
  event: EventEnvelope;
  /** outcomeRef of the event's outcome. */
  ref: string;
  bytes: Buffer;
}

/** An entry with its events decoded (an event that did not decode is left out, see decodeEntry). */
export interface DecodedEntry {
  id: string;
  /** How many events the entry holds, decoded or not. */
  size: number;
  events: EntryEvent[];
}

/** An event's delivery: what retries count and dead letters keep as their source. */
export function deliveryOf(entryId: string, index: number): string {
  return `${entryId}/${index}`;
}

/** A read's entries in runs of about `events` events (whole entries), each loaded and committed on its own. */
export function runsOf(entries: DecodedEntry[], events: number): DecodedEntry[][] {
  const runs: DecodedEntry[][] = [];
  let run: DecodedEntry[] = [];
  let inRun = 0;
  for (const entry of entries) {
    if (run.length > 0 && inRun + entry.size > events) {
      runs.push(run);
      run = [];
      inRun = 0;
    }
    run.push(entry);
    inRun += entry.size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** Told of an entry (or, with `index`, one event of it) that is not what the ingress writes. */
export type MalformedEntry = (entryId: string, index?: number) => void;

/**
 * The entries of a read. An entry whose value is not what the ingress writes (something else wrote to the
 * stream) names no account whose dead-letter queue could hold it: it is reported and left with no events,
 * so it is acknowledged rather than left to block the shard.
 */
export function streamEntries(raw: readonly RawEntry[], malformed: MalformedEntry): StreamEntry[] {
  return raw.map(([rawId, fields]): StreamEntry => {
    const id = rawId.toString();
    // Re-reading pending entries gives null fields for entries deleted (trimmed) since delivery.
    if (!fields) return { id, events: [] };
    const events = fields.length === 2 && fields[0]!.toString() === ENTRY_FIELD ? entryEvents(fields[1]!) : undefined;
    if (!events) malformed(id);
    return { id, events: events ?? [] };
  });
}

/** The entry's events that decode to an envelope; one that does not is reported and skipped. */
export function decodeEntry(entry: StreamEntry, malformed: MalformedEntry): DecodedEntry {
  const events: EntryEvent[] = [];
  entry.events.forEach((bytes, index) => {
    let event: EventEnvelope;
    try {
      event = unpackEnvelope(bytes);
    } catch {
      malformed(entry.id, index);
      return;
    }
    events.push({ index, event, ref: outcomeRef(event.accountId, event.outcomeKey), bytes });
  });
  return { id: entry.id, size: entry.events.length, events };
}
