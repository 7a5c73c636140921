// Retry-After in either of its forms.
import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after.js";

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("1")).toBe(1_000);
    expect(parseRetryAfter(" 0 ")).toBe(0);
    const now = Date.parse("2026-11-25T00:00:00Z");
    expect(parseRetryAfter("Wed, 25 Nov 2026 00:00:02 GMT", now)).toBe(2_000);
    expect(parseRetryAfter("Tue, 24 Nov 2026 23:00:00 GMT", now)).toBe(0);
  });

  it("ignores an absent or unreadable header", () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});
