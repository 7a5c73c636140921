// The merge order of outcome index members must be Redis's byte order, for any well-formed strings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareUtf8 } from "./utf8-order.js";

const sign = (n: number): number => Math.sign(n);

describe("compareUtf8", () => {
  it("orders strings as their UTF-8 bytes compare", () => {
    // Full code points (surrogate pairs included), biased towards the ranges where UTF-16 and UTF-8 disagree.
    const char = fc.oneof(
      fc.constantFrom("a", "é", "\uD7FF", "\uE000", "\uFFFD", "\uFFFF", "😀", "\u{10000}", "\u{10FFFF}"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    );
    const text = fc.array(char, { maxLength: 6 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(sign(compareUtf8(a, b))).toBe(sign(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))));
      }),
      { numRuns: 5000 },
    );
  });

  it("puts a character above U+FFFF after U+E000-U+FFFF, where `<` puts it before", () => {
    expect("\u{1F600}" < "\uE000").toBe(true);
    expect(compareUtf8("\u{1F600}", "\uE000")).toBeGreaterThan(0);
  });
});
