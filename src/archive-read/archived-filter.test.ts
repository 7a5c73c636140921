// The filter's offsets: in range, distinct for one ref, stable (filters are stored), and as selective as
// the sizing note says at its design load.
import { describe, expect, it } from "vitest";
import { FILTER_BITS, FILTER_HASHES, filterOffsets } from "./archived-filter.js";

describe("filterOffsets", () => {
  it("gives FILTER_HASHES distinct offsets within the filter, the same every time", () => {
    for (const ref of ["acct_1\norder-1", "acct_1\norder-2", "a\n", "ünï\ncödé"]) {
      const offsets = filterOffsets(ref);
      expect(offsets).toHaveLength(FILTER_HASHES);
      expect(new Set(offsets).size).toBe(FILTER_HASHES);
      for (const offset of offsets) expect(offset >= 0 && offset < FILTER_BITS).toBe(true);
      expect(filterOffsets(ref)).toEqual(offsets);
    }
    // Stored in Redis: a change here must come with a new FILTER_LAYOUT_VERSION (the filters are rebuilt).
    expect(filterOffsets("acct_1\norder-1")).toMatchInlineSnapshot(`
      [
        1522830,
        65729,
        705780,
        1345831,
        1985882,
      ]
    `);
  });

  it("has about 1% false positives at 200,000 outcomes in one shard's filter", () => {
    const bits = new Uint8Array(FILTER_BITS / 8);
    const set = (ref: string): void => {
      for (const offset of filterOffsets(ref)) bits[offset >> 3]! |= 1 << (offset & 7);
    };
    const held = (ref: string): boolean =>
      filterOffsets(ref).every((offset) => (bits[offset >> 3]! & (1 << (offset & 7))) !== 0);
    for (let i = 0; i < 200_000; i++) set(`acct_${i % 7}\nticket-${i}`);
    for (let i = 0; i < 200_000; i++) expect(held(`acct_${i % 7}\nticket-${i}`)).toBe(true);
    let falsePositives = 0;
    for (let i = 0; i < 100_000; i++) if (held(`acct_${i % 7}\nnew-${i}`)) falsePositives++;
    // (1 - e^(-5 * 200,000 / 2^21))^5 = 0.78%.
    expect(falsePositives / 100_000).toBeGreaterThan(0.004);
    expect(falsePositives / 100_000).toBeLessThan(0.012);
  });
});
