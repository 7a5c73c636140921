// Retry delays: full jitter under an exponential cap, and Retry-After as a floor.
import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./backoff.js";

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
