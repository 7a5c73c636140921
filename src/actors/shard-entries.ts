// What the shard actor reads from its stream: entries (one per ingress write) holding packed events, and
// the deliveries they make up, "<entry id>/<index in the entry>".
import type { EventEnvelope } from "../streams/event-envelope.js";

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

/** An entry with its events decoded (an event that did not decode is left out, see ShardActor.decode). */
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

/** A read's entries in runs of about `events` events (whole entries), each committed on its own. */
export function runsOf(entries: StreamEntry[], events: number): StreamEntry[][] {
  const runs: StreamEntry[][] = [];
  let run: StreamEntry[] = [];
  let inRun = 0;
  for (const entry of entries) {
    if (run.length > 0 && inRun + entry.events.length > events) {
      runs.push(run);
      run = [];
      inRun = 0;
    }
    run.push(entry);
    inRun += entry.events.length;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
