// The bounded hot set: least recently used outcomes go first, a read counts as use, a shard drops whole.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HotOutcomes } from "./hot-outcomes.js";
import type { OutcomeRecord } from "../outcomes/outcome-record.js";

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

  it("agrees with a plain list model under any sequence of uses, deletes and shard drops", () => {
    type Op = { op: "get" | "set" | "delete"; shard: number; ref: string } | { op: "drop"; shard: number };
    const target = fc.record({ shard: fc.integer({ min: 0, max: 2 }), ref: fc.constantFrom("a", "b", "c", "d", "e") });
    const op: fc.Arbitrary<Op> = fc.oneof(
      target.map((t) => ({ op: "get" as const, ...t })),
      target.map((t) => ({ op: "set" as const, ...t })),
      target.map((t) => ({ op: "delete" as const, ...t })),
      fc.integer({ min: 0, max: 2 }).map((shard) => ({ op: "drop" as const, shard })),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 60 }), (capacity, ops) => {
        const hot = new HotOutcomes(capacity);
        // Least recently used first.
        let model: { shard: number; ref: string; key: string }[] = [];
        const find = (shard: number, ref: string): number => model.findIndex((m) => m.shard === shard && m.ref === ref);
        ops.forEach((o, step) => {
          if (o.op === "drop") {
            hot.dropShard(o.shard);
            model = model.filter((m) => m.shard !== o.shard);
            return;
          }
          const at = find(o.shard, o.ref);
          if (o.op === "get") {
            expect(hot.get(o.shard, o.ref)?.key).toBe(at >= 0 ? model[at]!.key : undefined);
            if (at >= 0) model.push(...model.splice(at, 1));
          } else if (o.op === "set") {
            const key = `${o.ref}${step}`;
            hot.set(o.shard, o.ref, record(key));
            if (at >= 0) model.splice(at, 1);
            model.push({ shard: o.shard, ref: o.ref, key });
            if (model.length > capacity) model.shift();
          } else {
            hot.delete(o.shard, o.ref);
            if (at >= 0) model.splice(at, 1);
          }
          expect(hot.size).toBe(model.length);
        });
      }),
    );
  });
});
