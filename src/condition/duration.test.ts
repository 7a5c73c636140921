// Durations: the short grammar, ISO 8601 input, canonical printing and the IDLE countdown.
import { describe, expect, test } from "vitest";
import { ConditionParseError, formatDuration, formatRemaining, parseDuration } from "./index.js";

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const w = 7 * d;

describe("parseDuration and formatDuration", () => {
  test.each<[string, number, string]>([
    ["30s", 30 * s, "30s"],
    ["15m", 15 * m, "15m"],
    ["2h", 2 * h, "2h"],
    ["1d", d, "1d"],
    ["1w", w, "1w"],
    ["1d12h", d + 12 * h, "1d12h"],
    ["90m", 90 * m, "1h30m"],
    ["7d", w, "1w"],
    ["8d", w + d, "1w1d"],
    ["1w2d3h4m5s", w + 2 * d + 3 * h + 4 * m + 5 * s, "1w2d3h4m5s"],
    ["0s", 0, "0s"],
    ["P1DT2H", d + 2 * h, "1d2h"],
    ["PT90M", 90 * m, "1h30m"],
    ["P2W", 2 * w, "2w"],
    ["PT30S", 30 * s, "30s"],
    ["P1W1D", w + d, "1w1d"],
  ])("%s", (text, ms, canonical) => {
    expect(parseDuration(text)).toBe(ms);
    expect(formatDuration(ms)).toBe(canonical);
    expect(parseDuration(canonical)).toBe(ms);
  });

  test.each([
    "",
    "P",
    "PT",
    "P1DT",
    "1",
    "s",
    "1h1h",
    "12h1d",
    "1.5h",
    "1y",
    "P1Y",
    "P1M",
    "1D",
    " 1d",
    "-1s",
    "1d 2h",
    "99999999999999999999w",
  ])("rejects %j", (text) => {
    expect(() => parseDuration(text)).toThrow(ConditionParseError);
  });

  test("formatDuration drops milliseconds and refuses negatives", () => {
    expect(formatDuration(1999)).toBe("1s");
    expect(() => formatDuration(-1)).toThrow(RangeError);
  });
});

describe("formatRemaining", () => {
  test.each<[number, string]>([
    [23 * h, "23h"],
    [d - 1, "23h59m"],
    [h, "1h"],
    [2 * w - s, "1w6d"],
    [0, "0s"],
    [-5 * s, "0s"],
    [999, "0s"],
    [59 * s + 999, "59s"],
    [d + 2 * h + 3 * m, "1d2h"],
    [d + 3 * m, "1d"],
    [h + 59 * s, "1h"],
    [m + 1 * s, "1m1s"],
  ])("%d ms -> %s", (ms, text) => {
    expect(formatRemaining(ms)).toBe(text);
  });
});
