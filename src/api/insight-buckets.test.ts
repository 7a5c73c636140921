// Bucket starts of GET /v1/insights: local midnights and Mondays across daylight-saving changes.
import { describe, expect, it } from "vitest";
import { bucketIndex, bucketStarts, knownZone, MAX_BUCKETS } from "./insight-buckets.js";

const at = (iso: string): number => Date.parse(iso);
const iso = (starts: readonly number[]): string[] => starts.map((ms) => new Date(ms).toISOString());

describe("bucketStarts", () => {
  it("starts Berlin's days at local midnight on both sides of the spring change (a 23-hour day)", () => {
    const range = bucketStarts("day", at("2026-03-28T12:00:00Z"), at("2026-03-30T12:00:00Z"), "Europe/Berlin")!;
    expect(iso(range.starts)).toEqual([
      "2026-03-27T23:00:00.000Z",
      "2026-03-28T23:00:00.000Z",
      "2026-03-29T22:00:00.000Z",
    ]);
    expect(new Date(range.end).toISOString()).toBe("2026-03-30T22:00:00.000Z");
  });

  it("starts weeks on Monday at local midnight (New York, across the autumn change)", () => {
    const range = bucketStarts("week", at("2026-10-28T00:00:00Z"), at("2026-11-10T00:00:00Z"), "America/New_York")!;
    expect(iso(range.starts)).toEqual([
      "2026-10-26T04:00:00.000Z",
      "2026-11-02T05:00:00.000Z",
      "2026-11-09T05:00:00.000Z",
    ]);
  });

  it("counts hours in UTC from the hour holding `from`, and refuses more than MAX_BUCKETS", () => {
    const range = bucketStarts("hour", at("2026-01-01T00:30:00Z"), at("2026-01-01T02:00:00Z"), "UTC")!;
    expect(iso(range.starts)).toEqual(["2026-01-01T00:00:00.000Z", "2026-01-01T01:00:00.000Z"]);
    expect(bucketStarts("hour", 0, (MAX_BUCKETS + 1) * 3_600_000, "UTC")).toBeNull();
    expect(bucketStarts("hour", 0, MAX_BUCKETS * 3_600_000, "UTC")?.starts).toHaveLength(MAX_BUCKETS);
  });

  it("finds an hour's bucket, and -1 before the first", () => {
    const starts = [10, 20, 30];
    expect([5, 10, 19, 20, 35].map((hour) => bucketIndex(starts, hour))).toEqual([-1, 0, 0, 1, 2]);
  });

  it("knows IANA zones and refuses other names", () => {
    expect(knownZone("Asia/Kolkata")).toBe(true);
    expect(knownZone("Mars/Olympus")).toBe(false);
  });
});
