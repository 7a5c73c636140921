// Counting events by account and minute of receipt, and the hourly hash each minute belongs to.
import { describe, expect, it } from "vitest";
import { countByMinute, hourOfMinute, minuteOf } from "./ingest-minutes.js";

describe("ingest minutes", () => {
  it("counts events per account and minute received", () => {
    const t = Date.parse("2026-11-25T10:59:30Z");
    const counts = countByMinute([
      { accountId: "a", receivedAt: t },
      { accountId: "a", receivedAt: t + 29_999 },
      { accountId: "a", receivedAt: t + 30_000 },
      { accountId: "b", receivedAt: t },
    ]);
    expect([...counts.get("a")!]).toEqual([
      [minuteOf(t), 2],
      [minuteOf(t) + 1, 1],
    ]);
    expect([...counts.get("b")!]).toEqual([[minuteOf(t), 1]]);
  });

  it("puts minutes 0..59 of an hour in that hour's hash", () => {
    const hourStart = minuteOf(Date.parse("2026-11-25T11:00:00Z"));
    expect(hourOfMinute(hourStart)).toBe(hourOfMinute(hourStart + 59));
    expect(hourOfMinute(hourStart - 1)).toBe(hourOfMinute(hourStart) - 1);
  });
});
