// The stand-in for a password check: which unknown-email attempts hash for real, and how long the others wait.
import { describe, expect, it } from "vitest";
import { PasswordTiming } from "./password-timing.js";

describe("PasswordTiming", () => {
  it("checks unknown emails for real until four checks are timed, then one attempt in sixteen", () => {
    const timing = new PasswordTiming();
    const real: number[] = [];
    for (let attempt = 1; attempt <= 64; attempt++) {
      if (!timing.checkUnknown()) continue;
      real.push(attempt);
      timing.record(100);
    }
    expect(real).toEqual([1, 2, 3, 4, 16, 32, 48, 64]);
  });

  it("waits one of the last 32 checks' durations, drawn at random", () => {
    let draw = 0;
    const timing = new PasswordTiming(() => draw);
    expect(timing.waitMs()).toBe(0);
    for (let ms = 1; ms <= 40; ms++) timing.record(ms);
    const waits = new Set<number>();
    for (let i = 0; i < 32; i++) {
      draw = i / 32;
      waits.add(timing.waitMs());
    }
    // 1..8 were overwritten by 33..40.
    expect([...waits].sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, i) => i + 9));
  });
});
