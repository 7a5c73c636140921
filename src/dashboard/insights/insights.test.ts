// The insight pages' parts on fixed data: groups summed bucket by bucket, one revenue chart per currency,
// rates that stand on too few verdicts drawn as no trend, clauses marked at the right leaf, all escaped.
import { describe, expect, it } from "vitest";
import { markClause } from "./clause-marks.js";
import { failingClausesTable, rateLine, revenueBars, timeToVerdictTable } from "./sections.js";
import {
  emptyGroup,
  emptySeries,
  emptyTotals,
  formatDuration,
  sumSeries,
  type InsightGroup,
  type InsightPoint,
} from "./view.js";

const EVIL = `<img src=x onerror=alert(1)>"'`;

function point(start: string, counts: Partial<InsightPoint>): InsightPoint {
  return { start, opened: 0, confirmed: 0, failed: 0, forced: 0, dead_letters: 0, charges: {}, ...counts };
}

function group(key: string, series: InsightPoint[]): InsightGroup {
  return emptyGroup(key, series);
}

const days = emptySeries("2026-11-01T00:00:00.000Z", "2026-11-04T00:00:00.000Z", "day");

describe("series", () => {
  it("lists every bucket of the range, and adds groups bucket by bucket, charges per currency", () => {
    expect(days.map((d) => d.start)).toEqual([
      "2026-11-01T00:00:00.000Z",
      "2026-11-02T00:00:00.000Z",
      "2026-11-03T00:00:00.000Z",
    ]);
    const a = group("a", [
      point(days[0]!.start, { confirmed: 2, charges: { EUR: 250 } }),
      point(days[1]!.start, { failed: 1 }),
      point(days[2]!.start, { dead_letters: 3 }),
    ]);
    const b = group("b", [
      point(days[0]!.start, { confirmed: 1, charges: { EUR: 100, USD: 5 } }),
      point(days[1]!.start, { failed: 4, forced: 2 }),
      point(days[2]!.start, {}),
    ]);
    expect(sumSeries([a, b], days)).toEqual([
      point(days[0]!.start, { confirmed: 3, charges: { EUR: 350, USD: 5 } }),
      point(days[1]!.start, { failed: 5, forced: 2 }),
      point(days[2]!.start, { dead_letters: 3 }),
    ]);
  });

  it("says durations the way people do", () => {
    expect([850, 4200, 720_000, 12_600_000, 181_440_000].map(formatDuration)).toEqual([
      "850 ms",
      "4.2 s",
      "12 min",
      "3.5 h",
      "2.1 d",
    ]);
  });
});

describe("charts of a series", () => {
  it("draws one revenue chart per currency, never adding currencies", () => {
    const series = [
      point(days[0]!.start, { charges: { USD: 300, EUR: 250 } }),
      point(days[1]!.start, { charges: { EUR: 100 } }),
      point(days[2]!.start, {}),
    ];
    const markup = revenueBars("revenue", series, "day").text;
    const bars = [...markup.matchAll(/data-series="charges" data-start="([^"]+)" data-value="(\d+)"/g)].map(
      (m) => `${m[1]!.slice(8, 10)}:${m[2]}`,
    );
    expect(bars).toEqual(["01:250", "02:100", "03:0", "01:300", "02:0", "03:0"]);
    expect(markup).toContain("Charges in EUR per day: €3.50 in all.");
    expect(markup).toContain("Charges in USD per day: $3.00 in all.");
    expect(revenueBars("revenue", days, "day").text).toContain("No charges in this period.");
  });

  it("draws a rate on fewer than 3 verdicts hollow, and none where nothing was decided", () => {
    const series = [
      point(days[0]!.start, { confirmed: 3, failed: 1 }),
      point(days[1]!.start, { confirmed: 1, failed: 1 }),
      point(days[2]!.start, {}),
    ];
    const points = [
      ...rateLine("rate", series, "day").text.matchAll(
        /<circle class="([^"]+)" data-start="[^"]+" data-value="([^"]+)" data-volume="(\d+)"/g,
      ),
    ].map((m) => m.slice(1));
    expect(points).toEqual([
      ["point", "0.75", "4"],
      ["point thin", "0.5", "2"],
    ]);
  });
});

describe("markClause", () => {
  const condition = "done AND (COUNT(reply)>=2 OR done) AND NOT escalated";
  const clauses = [
    { id: "h.1", text: "done" },
    { id: "h.2", text: "COUNT(reply)>=2" },
    { id: "h.3", text: "done" },
    { id: "h.4", text: "NOT escalated" },
  ];

  it("marks the n-th leaf, a repeated text at its own place", () => {
    expect(markClause(condition, clauses, "h.3")!.text).toBe(
      "done AND (COUNT(reply)&gt;=2 OR <mark>done</mark>) AND NOT escalated",
    );
    expect(markClause(condition, clauses, "h.4")!.text).toBe(
      "done AND (COUNT(reply)&gt;=2 OR done) AND <mark>NOT escalated</mark>",
    );
  });

  it("marks nothing for a clause of another version of the condition, and escapes the text", () => {
    expect(markClause(condition, clauses, "other.1")).toBeUndefined();
    expect(markClause(`x="<b>" AND y`, [{ id: "1", text: `x="<b>"` }], "1")!.text).toBe(
      "<mark>x=&quot;&lt;b&gt;&quot;</mark> AND y",
    );
  });
});

describe("tables", () => {
  it("ranks failing clauses in the API's order, escaping clause texts and ids", () => {
    const markup = failingClausesTable(
      [
        {
          clause: { clause: "c.2", text: EVIL, count: 7 },
          marked: undefined,
          href: "/dashboard/outcomes?status=FAILED&task_key=%3C",
        },
        {
          clause: { clause: EVIL, text: "approved", count: 3 },
          marked: markClause("approved", [{ id: EVIL, text: "approved" }], EVIL),
          href: "/x",
        },
      ],
      8,
    ).text;
    expect([...markup.matchAll(/data-count="(\d+)"/g)].map((m) => m[1])).toEqual(["7", "3"]);
    expect(markup).not.toContain("<img");
    expect(markup).toContain("<mark>approved</mark>");
    expect(markup).toContain("88% of failed");
    expect(markup).toContain("from an earlier version of the condition");
  });

  it("shows time to verdict per group, a group key escaped in text and link", () => {
    const g = group(EVIL, []);
    g.totals = {
      ...emptyTotals(),
      opened: 4,
      confirmed: 3,
      failed: 1,
      decided: 4,
      confirmation_rate: 0.75,
      time_to_verdict_ms: { p50: 60_000, p90: 7_200_000 },
    };
    const markup = timeToVerdictTable(
      [g, group("idle", [])],
      "task",
      (key) => `/dashboard/tasks/${encodeURIComponent(key)}/insights`,
    ).text;
    expect(markup).not.toContain("<img");
    expect(markup.match(/<tr><th scope="row">/g)).toHaveLength(1);
    expect(markup).toContain("<td>4</td><td>75%</td><td>1 min</td><td>2 h</td>");
  });
});
