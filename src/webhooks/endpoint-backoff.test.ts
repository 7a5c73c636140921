import { describe, expect, it } from "vitest";
import { EndpointBackoff } from "./endpoint-backoff.js";

describe("EndpointBackoff", () => {
  const schedule = [100, 1000, 5000];
  const backoff = (): EndpointBackoff =>
    new EndpointBackoff((rounds) => schedule[Math.min(rounds, schedule.length) - 1]);

  it("lets a round through until an unreachable one, then waits the schedule's delay for each in a row", () => {
    const b = backoff();
    expect(b.waiting("e", 0)).toBe(false);
    b.unreachable("e", 0);
    expect(b.waiting("e", 99)).toBe(true);
    expect(b.waiting("e", 100)).toBe(false);
    b.unreachable("e", 100);
    expect(b.waiting("e", 1099)).toBe(true);
    b.unreachable("e", 1100);
    b.unreachable("e", 6100);
    // Past the schedule's end the last delay repeats.
    expect(b.waiting("e", 11_099)).toBe(true);
    expect(b.waiting("e", 11_100)).toBe(false);
  });

  it("starts again from the first delay once a round reaches the endpoint, and keeps endpoints apart", () => {
    const b = backoff();
    b.unreachable("e", 0);
    b.unreachable("e", 100);
    b.reached("e");
    expect(b.waiting("e", 100)).toBe(false);
    b.unreachable("e", 200);
    expect(b.waiting("e", 300)).toBe(false);
    expect(b.waiting("other", 200)).toBe(false);
  });

  it("does not wait when the schedule gives no delay", () => {
    const b = new EndpointBackoff(() => undefined);
    b.unreachable("e", 0);
    expect(b.waiting("e", 0)).toBe(false);
  });
});
