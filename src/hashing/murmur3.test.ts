// murmur3 over code units is MurmurHash3 x86_32 over the string's UTF-16LE bytes: the reference's published
// vectors, for inputs an even number of bytes long, spelled as code units.
import { describe, expect, it } from "vitest";
import { murmur3 } from "./murmur3.js";

describe("murmur3", () => {
  it.each([
    ["", 0, 0],
    ["", 1, 0x514e28b7],
    ["", 0xffffffff, 0x81f16f39],
    ["\u0000\u0000", 0, 0x2362f9de],
    ["\uffff\uffff", 0, 0x76293b50],
    ["\u4321\u8765", 0, 0xf55b516b],
    ["\u4321\u8765", 0x5082edee, 0x2362f9de],
  ])("%j with seed %i gives the reference's value", (text, seed, expected) => {
    expect(murmur3(text, seed)).toBe(expected);
  });

  it("folds an odd last code unit and the length", () => {
    expect(murmur3("abc", 0)).not.toBe(murmur3("ab", 0));
    expect(murmur3("a\u0000", 0)).not.toBe(murmur3("a", 0));
  });
});
