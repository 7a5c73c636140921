// Retry delays: full jitter under an exponential cap, and Retry-After as a floor in either of its forms.
import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelayMs } from "./backoff.js";

const retry = { maxAttempts: 10, baseDelayMs: 50, maxDelayMs: 5_000 };

describe("retryDelayMs", () => {
  it("draws uniformly below a cap that doubles per attempt up to maxDelayMs", () => {
    expect(retryDelayMs(1, retry, 0, () => 0.999)).toBeCloseTo(49.95);
    expect(retryDelayMs(3, retry, 0, () => 0.5)).toBe(100);
    expect(retryDelayMs(30, retry, 0, () => 0.5)).toBe(2_500);
    expect(retryDelayMs(4, retry, 0, () => 0)).toBe(0);
  });

  it("never waits less than Retry-After", () => {
    expect(retryDelayMs(1, retry, 1_000, () => 0.5)).toBe(1_000);
    expect(retryDelayMs(30, retry, 1_000, () => 0.9)).toBe(4_500);
  });
});

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
