import { describe, expect, it } from "vitest";
import { ReadSize, SUSTAINED_LAG_MS } from "./read-size.js";

describe("ReadSize", () => {
  it("takes the max at a full read whose oldest entry is old, keeps it while reads fill, and drops to the base at one that does not", () => {
    const size = new ReadSize(1000, 4000);
    const old = SUSTAINED_LAG_MS;
    const fresh = SUSTAINED_LAG_MS - 1;
    const reads: [boolean, number][] = [
      [true, fresh],
      [false, old],
      [true, old],
      [true, fresh],
      [false, fresh],
      [true, old],
    ];
    const seen = reads.map(([full, age]) => {
      size.observe(full, age);
      return size.events;
    });
    expect(seen).toEqual([1000, 1000, 4000, 4000, 1000, 4000]);
  });

  it("never goes below the base, even with a max under it", () => {
    const size = new ReadSize(10_000, 4000);
    size.observe(true, SUSTAINED_LAG_MS);
    expect(size.events).toBe(10_000);
    size.observe(false, 0);
    expect(size.events).toBe(10_000);
  });
});
