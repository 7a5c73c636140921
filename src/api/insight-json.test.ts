import { describe, expect, it } from "vitest";
import { insightsJson } from "./insight-json.js";
import { GroupSums } from "./insight-sums.js";
import { JsonBytes } from "./json-bytes.js";

describe("JsonBytes", () => {
  it("writes numbers as JSON.stringify does", () => {
    const values = [0, -0, 7, 10, 99, 1234567890, 2 ** 53 - 1, 2 ** 53, -3, 1.5, -0.25, 1e21, Number.NaN];
    const out = new JsonBytes(1);
    values.forEach((value, i) => {
      if (i > 0) out.byte(0x2c);
      out.number(value);
    });
    expect(out.done().toString()).toBe(values.map((value) => JSON.stringify(value)).join(","));
  });
});

describe("insightsJson", () => {
  it("writes the answer in InsightsView's shape and order, as JSON.stringify would", () => {
    const starts = [Date.UTC(2026, 10, 27, 0), Date.UTC(2026, 10, 27, 1)];
    const sums = new GroupSums(2, true);
    sums.add(0, "o", 3);
    sums.add(1, "c", 2);
    sums.add(1, "f", 1);
    sums.add(1, "d", 1);
    sums.add(0, "mEUR", 1250);
    sums.add(1, "mUSD", 99.5);
    sums.add(1, "nUSD", 1);
    sums.add(1, "xTIMEOUT", 1);
    sums.add(1, "h2", 3);
    sums.add(1, "kab.1", 1);
    sums.add(1, "Tab.1", 'status == "done"');
    const head = {
      bucket: "hour",
      from: "2026-11-27T00:00:00.000Z",
      to: "2026-11-27T02:00:00.000Z",
      tz: "UTC",
      groups_total: 1,
    };
    const text = insightsJson(head, [{ key: 'task "é"', sums }], starts).toString();
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    const answer = JSON.parse(text) as Record<string, unknown> & {
      groups: Array<Record<string, unknown> & { series: Array<Record<string, unknown>> }>;
    };
    expect(Object.keys(answer)).toEqual(["bucket", "from", "to", "tz", "groups_total", "groups"]);
    const group = answer.groups[0]!;
    expect(Object.keys(group)).toEqual(["key", "series", "totals", "failing_clauses"]);
    expect(group.key).toBe('task "é"');
    expect(group.series).toEqual([
      {
        start: "2026-11-27T00:00:00.000Z",
        opened: 3,
        confirmed: 0,
        failed: 0,
        forced: 0,
        dead_letters: 0,
        charges: { EUR: 1250 },
        time_to_verdict_ms: { p50: null, p90: null },
      },
      {
        start: "2026-11-27T01:00:00.000Z",
        opened: 0,
        confirmed: 2,
        failed: 1,
        forced: 1,
        dead_letters: 1,
        charges: { USD: 99.5 },
        time_to_verdict_ms: { p50: 60_000, p90: 60_000 },
      },
    ]);
    expect(Object.keys(group.series[0]!)).toEqual([
      "start",
      "opened",
      "confirmed",
      "failed",
      "forced",
      "dead_letters",
      "charges",
      "time_to_verdict_ms",
    ]);
    expect(group.failing_clauses).toEqual([{ clause: "ab.1", text: 'status == "done"', count: 1 }]);
  });

  it("writes repeated, large, fractional and many distinct counts as JSON.stringify would", () => {
    // 5,000 points: past the runs formatted once per answer, with counts of 1024 and more and a fraction.
    const starts = Array.from({ length: 5000 }, (_, i) => Date.UTC(2026, 0, 1) + i * 3_600_000);
    const sums = new GroupSums(starts.length, false);
    starts.forEach((_, i) => {
      sums.add(i, "o", i);
      sums.add(i, "c", i % 3);
      if (i % 1000 === 7) sums.add(i, "d", 0.5);
    });
    const head = { bucket: "hour", from: "", to: "", tz: "UTC", groups_total: 1 };
    const text = insightsJson(head, [{ key: "t", sums }], starts).toString();
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    const answer = JSON.parse(text) as { groups: Array<{ series: Array<Record<string, unknown>> }> };
    expect(answer.groups[0]!.series).toEqual(
      starts.map((start, i) => ({
        start: new Date(start).toISOString(),
        opened: i,
        confirmed: i % 3,
        failed: 0,
        forced: i % 1000 === 7 ? 0.5 : 0,
        dead_letters: 0,
        charges: {},
      })),
    );
  });
});
