// Stream entry id order, checked against numeric comparison of the two parts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareEntryIds, entryTimeMs } from "./entry-id.js";

const numeric = (id: string): [bigint, bigint] => {
  const [ms = "0", seq = "0"] = id.split("-");
  return [BigInt(ms), BigInt(seq)];
};
const sign = (n: number | bigint): number => (n > 0 ? 1 : n < 0 ? -1 : 0);

describe("compareEntryIds", () => {
  it("orders ids as their (ms, seq) numbers", () => {
    const part = fc.bigInt({ min: 0n, max: 2n ** 53n }).map(String);
    const id = fc.tuple(part, part).map(([ms, seq]) => `${ms}-${seq}`);
    fc.assert(
      fc.property(id, id, (a, b) => {
        const [aMs, aSeq] = numeric(a);
        const [bMs, bSeq] = numeric(b);
        expect(sign(compareEntryIds(a, b))).toBe(aMs !== bMs ? sign(aMs - bMs) : sign(aSeq - bSeq));
      }),
    );
  });

  it("reads a missing sequence as 0", () => {
    expect(compareEntryIds("5", "5-0")).toBe(0);
    expect(compareEntryIds("5", "5-1")).toBeLessThan(0);
    expect(compareEntryIds("10", "9-99")).toBeGreaterThan(0);
  });
});

describe("entryTimeMs", () => {
  it("reads the milliseconds part of an id, with or without a sequence", () => {
    expect(entryTimeMs("1795678193766-12")).toBe(1795678193766);
    expect(entryTimeMs("1795678193766")).toBe(1795678193766);
  });
});
