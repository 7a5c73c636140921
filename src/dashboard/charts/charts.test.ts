// The SVG chart module on fixed data: one bar or point per bucket carrying its start and value, bars
// stacked and scaled, trends broken where data is thin or missing, every text escaped, a table of the
// same numbers.
import { describe, expect, it } from "vitest";
import { barChart } from "./bar-chart.js";
import { bucketLabel, DURATION_STEPS_MS, HEIGHT, niceTicks, PLOT } from "./frame.js";
import { lineChart } from "./line-chart.js";

/** The attributes of every `<tag ...>` in `markup` (values unescaped). */
function elements(markup: string, tag: string): Record<string, string>[] {
  return [...markup.matchAll(new RegExp(`<${tag}\\s([^>]*)>`, "g"))].map((match) =>
    Object.fromEntries(
      [...match[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, name, value]) => [
        name!,
        value!
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, "&"),
      ]),
    ),
  );
}

const buckets = ["2026-11-01", "2026-11-02", "2026-11-03"].map((day) => ({
  start: `${day}T00:00:00.000Z`,
  label: bucketLabel(`${day}T00:00:00.000Z`, "day"),
}));

describe("niceTicks", () => {
  it("rounds the top up to 1, 2 or 5 times a power of ten, in at most 4 steps", () => {
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(100)).toEqual([0, 50, 100]);
    expect(niceTicks(1)).toEqual([0, 0.5, 1]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
  });
  it("keeps counts whole, and draws an empty chart on 0 to 1", () => {
    expect(niceTicks(1, 4, 1)).toEqual([0, 1]);
    expect(niceTicks(3, 4, 1)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0, 4, 1)).toEqual([0, 1]);
  });
  it("ticks a duration at steps a clock is read in", () => {
    const minutes = (ticks: number[]): number[] => ticks.map((t) => t / 60_000);
    expect(minutes(niceTicks(66 * 60_000, 4, 0, DURATION_STEPS_MS))).toEqual([0, 30, 60, 90]);
    expect(minutes(niceTicks(40 * 60_000, 4, 0, DURATION_STEPS_MS))).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(2_400, 4, 0, DURATION_STEPS_MS)).toEqual([0, 1000, 2000, 3000]);
    // Past a week's steps, powers of ten again.
    expect(niceTicks(30 * 86_400_000, 4, 0, DURATION_STEPS_MS)).toEqual([0, 1e9, 2e9, 3e9]);
  });
});

describe("bucketLabel", () => {
  it("reads the date and hour written in the start, whatever its offset", () => {
    expect(bucketLabel("2026-11-03T00:00:00.000Z", "day")).toBe("Nov 3");
    expect(bucketLabel("2026-11-03T14:00:00+09:00", "hour")).toBe("Nov 3 14:00");
    expect(bucketLabel("2026-12-28T00:00:00-05:00", "week")).toBe("Dec 28");
  });
});

describe("barChart", () => {
  const chart = barChart({
    id: "daily",
    caption: "Confirmed and failed per day",
    bucketHeader: "Day",
    buckets,
    series: [
      { name: "confirmed", label: "Confirmed", values: [3, 0, 8] },
      { name: "failed", label: "Failed", values: [1, 0, 2] },
    ],
  }).text;
  const bars = elements(chart, "rect").filter(
    (rect) => rect["data-series"] !== undefined && !rect.class!.includes("swatch"),
  );

  it("draws one bar per series per bucket, zeros included, each with its bucket and value", () => {
    expect(bars.map((bar) => [bar["data-series"], bar["data-start"], bar["data-value"]])).toEqual([
      ["confirmed", buckets[0]!.start, "3"],
      ["failed", buckets[0]!.start, "1"],
      ["confirmed", buckets[1]!.start, "0"],
      ["failed", buckets[1]!.start, "0"],
      ["confirmed", buckets[2]!.start, "8"],
      ["failed", buckets[2]!.start, "2"],
    ]);
    expect(bars.filter((bar) => bar["data-value"] === "0").map((bar) => Number(bar.height))).toEqual([0, 0]);
  });

  it("stacks each bucket's series on one baseline, heights in proportion to the values", () => {
    const bottom = (bar: Record<string, string>): number => Number(bar.y) + Number(bar.height);
    const [confirmed, failed] = [bars[4]!, bars[5]!];
    expect(bottom(confirmed)).toBeCloseTo(HEIGHT - PLOT.bottom, 1);
    expect(bottom(failed)).toBeCloseTo(Number(confirmed.y), 1);
    expect(Number(confirmed.height) / Number(failed.height)).toBeCloseTo(4, 1);
    expect(Number(bars[0]!.height) / Number(confirmed.height)).toBeCloseTo(3 / 8, 1);
  });

  it("names the picture by its caption and gives the same numbers as a table", () => {
    expect(chart).toMatch(/<svg [^>]*role="img" aria-labelledby="daily-caption"/);
    expect(chart).toContain('<figcaption id="daily-caption">Confirmed and failed per day</figcaption>');
    const rows = [...chart.matchAll(/<tr><th scope="row">.*?<\/tr>/g)].map((row) =>
      row[0].replace(/<[^>]+>/g, "|").replace(/\|+/g, "|"),
    );
    expect(rows).toEqual(["|Nov 1|3|1|", "|Nov 2|0|0|", "|Nov 3|8|2|"]);
    expect([...chart.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1])).toEqual([
      "Nov 1: Confirmed 3 · Failed 1",
      "Nov 2: Confirmed 0 · Failed 0",
      "Nov 3: Confirmed 8 · Failed 2",
    ]);
  });

  it("labels every few buckets, as many as fit without overlapping", () => {
    const hours = Array.from({ length: 24 }, (_, h) => {
      const start = new Date(Date.UTC(2026, 10, 3, h)).toISOString();
      return { start, label: bucketLabel(start, "hour") };
    });
    const markup = barChart({
      id: "h",
      caption: "c",
      bucketHeader: "Hour",
      buckets: hours,
      series: [{ name: "n", label: "N", values: hours.map(() => 1) }],
    }).text;
    const labels = elements(markup, "text").filter((text) => text.y === String(HEIGHT - 8));
    expect(labels).toHaveLength(5);
    const xs = labels.map((label) => Number(label.x));
    // "Nov 3 00:00" is 11 characters at about 7 units each.
    for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThan(11 * 7);
  });

  it("escapes every text it is given", () => {
    const evil = `"><script>alert(1)</script>`;
    const markup = barChart({
      id: "x",
      caption: evil,
      bucketHeader: evil,
      buckets: [{ start: evil, label: evil }],
      series: [{ name: "n", label: evil, values: [1] }],
    }).text;
    expect(markup).not.toContain("<script>");
    expect(elements(markup, "rect").find((rect) => rect["data-series"] === "n")!["data-start"]).toBe(evil);
  });
});

describe("lineChart", () => {
  const week = ["01", "02", "03", "04", "05"].map((d) => ({
    start: `2026-11-${d}T00:00:00.000Z`,
    label: `Nov ${Number(d)}`,
  }));
  const chart = lineChart({
    id: "rate",
    caption: "Confirmation rate",
    bucketHeader: "Day",
    buckets: week,
    values: [0.5, 0.75, null, 1, 0.25],
    volumes: [10, 20, 0, 2, 8],
    minVolume: 5,
    valueLabel: "Rate",
    volumeLabel: "Decided",
    format: (v) => `${Math.round(v * 100)}%`,
    max: 1,
  }).text;
  const points = elements(chart, "circle");

  it("draws a point for each bucket with a value, carrying its start, value and volume", () => {
    expect(points.map((p) => [p["data-start"], p["data-value"], p["data-volume"]])).toEqual([
      [week[0]!.start, "0.5", "10"],
      [week[1]!.start, "0.75", "20"],
      [week[3]!.start, "1", "2"],
      [week[4]!.start, "0.25", "8"],
    ]);
    expect(Number(points[3]!.cy)).toBeCloseTo(PLOT.top + (HEIGHT - PLOT.top - PLOT.bottom) * 0.75, 1);
  });

  it("joins only neighbouring points with enough volume; a thin one is hollow and alone", () => {
    expect(points.map((p) => p.class)).toEqual(["point", "point", "point thin", "point"]);
    const d = elements(chart, "path")[0]!.d!;
    expect(d.match(/[ML]/g)).toEqual(["M", "L", "M"]);
  });

  it("lists every bucket in the table, a missing value as none", () => {
    const rows = [...chart.matchAll(/<tr><th scope="row">.*?<\/tr>/g)].map((row) =>
      row[0].replace(/<[^>]+>/g, "|").replace(/\|+/g, "|"),
    );
    expect(rows).toEqual(["|Nov 1|50%|10|", "|Nov 2|75%|20|", "|Nov 3|none|0|", "|Nov 4|100%|2|", "|Nov 5|25%|8|"]);
  });
});
