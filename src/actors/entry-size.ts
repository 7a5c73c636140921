// How many events a shard stream entry carries, as far as the shard actor can tell: its reads ask for
// entries (XREADGROUP COUNT), and an entry carries one group-commit call, anything from one event to a
// thousand. Until a shard has read anything, its first read takes a few entries, and its estimate starts
// at the largest of them; after that it rises at once to a read's average when entries get larger, and
// falls gradually (an average over recent reads) as they get smaller. It used to start at one event per
// entry: a worker starting behind a backlog asked every shard for a thousand entries at once (31,000
// events per shard in the benchmark's backlog, half a million for a backlog of 500-event entries, all
// decoded from one reply).

/** Entries a shard's first read takes, to see how large they are. */
export const FIRST_READ_ENTRIES = 10;
/** The weight of the latest read when entries got smaller. */
const FALL_WEIGHT = 0.2;

export class EntrySize {
  /** Undefined until a read brought entries. */
  private eventsPerEntry: number | undefined;

  /** Entries to read for about `events` events (at least one, never more than `events`). */
  entriesFor(events: number): number {
    const perEntry = this.eventsPerEntry;
    if (perEntry === undefined) return Math.max(1, Math.min(events, FIRST_READ_ENTRIES));
    return Math.max(1, Math.min(events, Math.round(events / perEntry)));
  }

  /** Tells it what a read brought: `entries` entries carrying `events` events in all, `largest` the most in one. */
  observe(entries: number, events: number, largest: number): void {
    if (entries === 0) return;
    const average = Math.max(1, events / entries);
    if (this.eventsPerEntry === undefined) this.eventsPerEntry = Math.max(1, largest);
    else if (average > this.eventsPerEntry) this.eventsPerEntry = average;
    else this.eventsPerEntry = (1 - FALL_WEIGHT) * this.eventsPerEntry + FALL_WEIGHT * average;
  }
}
