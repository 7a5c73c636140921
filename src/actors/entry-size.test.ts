import { describe, expect, it } from "vitest";
import { EntrySize, FIRST_READ_ENTRIES } from "./entry-size.js";

describe("EntrySize", () => {
  it("takes a few entries first, and sizes the next read by the largest of them", () => {
    const size = new EntrySize();
    expect(size.entriesFor(1000)).toBe(FIRST_READ_ENTRIES);
    expect(size.entriesFor(3)).toBe(3);
    // Nine single events and one 500-event entry: the next read asks for two entries, not a thousand.
    size.observe(10, 509, 500);
    expect(size.entriesFor(1000)).toBe(2);
  });

  it("reads a backlog of single events in full reads from its second read on", () => {
    const size = new EntrySize();
    size.observe(FIRST_READ_ENTRIES, FIRST_READ_ENTRIES, 1);
    expect(size.entriesFor(10_000)).toBe(10_000);
  });

  it("rises at once when entries get larger, and falls back only gradually", () => {
    const size = new EntrySize();
    size.observe(10, 10, 1);
    expect(size.entriesFor(1000)).toBe(1000);
    size.observe(4, 2000, 500);
    expect(size.entriesFor(1000)).toBe(2);
    size.observe(2, 2, 1);
    expect(size.entriesFor(1000)).toBeLessThan(5);
    // Back near a thousand within a few dozen reads of single events.
    let reads = 1;
    while (size.entriesFor(1000) < 900 && reads < 100) {
      size.observe(size.entriesFor(1000), size.entriesFor(1000), 1);
      reads++;
    }
    expect(reads).toBeLessThan(40);
  });

  it("settles at about the events wanted per read", () => {
    const size = new EntrySize();
    for (let i = 0; i < 60; i++) {
      const entries = size.entriesFor(1000);
      size.observe(entries, entries * 31, 31);
    }
    expect(size.entriesFor(1000)).toBe(Math.round(1000 / 31));
  });

  it("ignores empty reads and counts an entry as at least one event", () => {
    const size = new EntrySize();
    size.observe(0, 0, 0);
    expect(size.entriesFor(1000)).toBe(FIRST_READ_ENTRIES);
    size.observe(10, 0, 0);
    expect(size.entriesFor(1000)).toBe(1000);
  });
});
