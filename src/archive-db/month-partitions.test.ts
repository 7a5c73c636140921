import { describe, expect, it } from "vitest";
import { monthsOf } from "./month-partitions.js";

describe("monthsOf", () => {
  it("counts instants by UTC month across month and year ends, in any order", () => {
    const instants = [
      Date.UTC(2026, 10, 30, 23, 59, 59, 999),
      Date.UTC(2026, 11, 1),
      Date.UTC(2026, 10, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      Date.UTC(2026, 10, 15),
      Date.UTC(2024, 1, 29, 12),
    ];
    expect(Object.fromEntries(monthsOf(instants))).toEqual({ "2026-11": 3, "2026-12": 2, "2027-01": 1, "2024-02": 1 });
  });

  it("refuses an instant whose year has more than four digits", () => {
    expect(() => monthsOf([Date.UTC(10_000, 0, 1)])).toThrow(/outside years 0000-9999/);
  });
});
