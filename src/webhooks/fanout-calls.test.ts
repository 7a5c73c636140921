// A page of outbox entries split into fan-out calls of whole entries and bounded messages.
import { describe, expect, it } from "vitest";
import { fanOutInCalls, MESSAGES_PER_CALL, type FanOutAnswer } from "./fanout-calls.js";
import { activeMember, type FanOut } from "./message-store.js";

const ENDPOINTS = [
  "e1",
  "e2",
  "e3",
  "e4",
  "e5",
  "e6",
  "e7",
  "e8",
  "e9",
  "e10",
  "e11",
  "e12",
  "e13",
  "e14",
  "e15",
  "e16",
  "e17",
  "e18",
  "e19",
  "e20",
];

function entry(n: number, endpointIds: readonly string[] = ENDPOINTS): FanOut {
  return {
    outboxEntryId: `${n}-0`,
    messageId: `m${n}`,
    type: "dead_letter.created",
    order: "a\no",
    body: "{}",
    accountId: "a",
    endpointIds,
  };
}

describe("fanOutInCalls", () => {
  it("sends every entry once, in order, in calls of about MESSAGES_PER_CALL messages", async () => {
    const page = Array.from({ length: 100 }, (_, n) => entry(n));
    const calls: FanOut[][] = [];
    const skipped = await fanOutInCalls(page, new Set(), (entries) => {
      calls.push(entries);
      return Promise.resolve({ full: [], skipped: 0 });
    });
    expect(skipped).toBe(0);
    expect(calls.flat().map((e) => e.outboxEntryId)).toEqual(page.map((e) => e.outboxEntryId));
    for (const call of calls)
      expect(call.reduce((n, e) => n + e.endpointIds.length, 0)).toBeLessThan(MESSAGES_PER_CALL + ENDPOINTS.length);
    expect(calls.length).toBe(Math.ceil((100 * ENDPOINTS.length) / MESSAGES_PER_CALL));
  });

  it("offers no later entry to an endpoint a call found at its backlog, and counts what it skipped", async () => {
    const page = Array.from({ length: 30 }, (_, n) => entry(n));
    const full = new Set([activeMember("a", "e1")]);
    const offered: string[][] = [];
    let calls = 0;
    const skipped = await fanOutInCalls(page, full, (entries): Promise<FanOutAnswer> => {
      offered.push(...entries.map((e) => [...e.endpointIds]));
      // The first call (11 entries of 19 endpoints) finds e2 full after its first message there.
      return Promise.resolve(
        ++calls === 1 ? { full: [activeMember("a", "e2")], skipped: entries.length - 1 } : { full: [], skipped: 0 },
      );
    });
    expect(offered).toHaveLength(30);
    expect(offered[0]).not.toContain("e1");
    expect(offered[10]).toContain("e2");
    expect(offered[11]).not.toContain("e2");
    // e1 in all 30 entries, e2 in the first call's 10 after its first and in the 19 later entries.
    expect(skipped).toBe(30 + 10 + 19);
    expect(full.has(activeMember("a", "e2"))).toBe(true);
  });
});
