import { describe, expect, it } from "vitest";
import { ReadSize } from "./read-size.js";

describe("ReadSize", () => {
  it("takes the max after two full reads in a row, and drops to the base at a read that is not full", () => {
    const size = new ReadSize(1000, 4000);
    const seen: number[] = [];
    for (const full of [true, false, true, true, true, false, true, true]) {
      size.observe(full);
      seen.push(size.events);
    }
    expect(seen).toEqual([1000, 1000, 1000, 4000, 4000, 1000, 1000, 4000]);
  });

  it("never goes below the base, even with a max under it", () => {
    const size = new ReadSize(10_000, 4000);
    size.observe(true);
    size.observe(true);
    expect(size.events).toBe(10_000);
    size.observe(false);
    expect(size.events).toBe(10_000);
  });
});
