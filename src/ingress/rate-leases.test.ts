import { describe, expect, it } from "vitest";
import { RateLeases } from "./rate-leases.js";

describe("RateLeases", () => {
  it("grants nothing before a lease was given, then up to what it holds", () => {
    const leases = new RateLeases(100, 1000);
    expect(leases.take("a", 1, 0)).toBe(false);
    expect(leases.toAsk("a", 0)).toBe(100);
    leases.granted("a", 100, 0);
    expect(leases.take("a", 60, 10)).toBe(true);
    expect(leases.take("a", 41, 10)).toBe(false);
    expect(leases.holds("a", 40, 10)).toBe(true);
    expect(leases.take("a", 40, 10)).toBe(true);
    expect(leases.holds("a", 1, 10)).toBe(false);
    expect(leases.take("b", 1, 10)).toBe(false);
  });

  it("asks for one top-up at a time, for what fills the lease", () => {
    const leases = new RateLeases(100, 1000);
    expect(leases.toAsk("a", 0)).toBe(100);
    expect(leases.toAsk("a", 0)).toBe(0);
    leases.granted("a", 30, 0);
    expect(leases.low("a", 0)).toBe(true);
    expect(leases.toAsk("a", 0)).toBe(70);
    leases.granted("a", 70, 5);
    expect(leases.low("a", 5)).toBe(false);
    expect(leases.toAsk("a", 5)).toBe(0);
  });

  it("runs low under half full or past half its life, and lapses whole at its end", () => {
    const leases = new RateLeases(100, 1000);
    leases.toAsk("a", 0);
    leases.granted("a", 100, 0);
    expect(leases.take("a", 50, 0)).toBe(true);
    expect(leases.low("a", 0)).toBe(false);
    expect(leases.take("a", 1, 0)).toBe(true);
    expect(leases.low("a", 0)).toBe(true);
    leases.toAsk("a", 0);
    leases.granted("a", 51, 0);
    expect(leases.low("a", 499)).toBe(false);
    expect(leases.low("a", 501)).toBe(true);
    expect(leases.take("a", 1, 1000)).toBe(false);
    // A lapsed lease is refilled from nothing: its old tokens are not kept.
    expect(leases.toAsk("a", 1000)).toBe(100);
    leases.granted("a", 10, 1000);
    expect(leases.take("a", 11, 1001)).toBe(false);
    expect(leases.take("a", 10, 1001)).toBe(true);
  });

  it("leases nothing at size 0", () => {
    const leases = new RateLeases(0, 1000);
    expect(leases.toAsk("a", 0)).toBe(0);
    expect(leases.take("a", 1, 0)).toBe(false);
  });

  it("keeps what a refused top-up leaves, and asks again", () => {
    const leases = new RateLeases(100, 1000);
    leases.toAsk("a", 0);
    leases.granted("a", 0, 0);
    expect(leases.take("a", 1, 0)).toBe(false);
    expect(leases.toAsk("a", 0)).toBe(100);
  });
});
