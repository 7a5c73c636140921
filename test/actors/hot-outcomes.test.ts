// The bounded hot set: least recently used outcomes go first, a read counts as use, a shard drops whole.
import { describe, expect, it } from "vitest";
import { HotOutcomes } from "../../src/actors/hot-outcomes.js";
import type { OutcomeRecord } from "../../src/outcomes/outcome-record.js";

const record = (key: string): OutcomeRecord => ({ key }) as OutcomeRecord;

describe("HotOutcomes", () => {
  it("evicts the least recently used past capacity; get and set count as use", () => {
    const hot = new HotOutcomes(3);
    hot.set(0, "a", record("a"));
    hot.set(0, "b", record("b"));
    hot.set(1, "c", record("c"));
    expect(hot.get(0, "a")?.key).toBe("a"); // a is now the most recent
    hot.set(1, "d", record("d")); // evicts b
    expect(hot.get(0, "b")).toBeUndefined();
    hot.set(1, "c", record("c2")); // replaces c's record and makes it recent
    hot.set(2, "e", record("e")); // evicts a
    expect(hot.get(0, "a")).toBeUndefined();
    expect([hot.get(1, "c")?.key, hot.get(1, "d")?.key, hot.get(2, "e")?.key]).toEqual(["c2", "d", "e"]);
    expect(hot.size).toBe(3);
  });

  it("keeps the same ref of different shards apart, and drops one shard's outcomes only", () => {
    const hot = new HotOutcomes(10);
    hot.set(0, "x", record("x0"));
    hot.set(1, "x", record("x1"));
    hot.set(1, "y", record("y1"));
    hot.dropShard(1);
    expect(hot.get(0, "x")?.key).toBe("x0");
    expect(hot.get(1, "x")).toBeUndefined();
    expect(hot.size).toBe(1);
    hot.delete(0, "x");
    expect(hot.size).toBe(0);
  });
});
