// The time buckets of GET /v1/insights: hours, or days and weeks that start at local midnight (weeks on
// Monday) in an IANA time zone.
import { HOUR_MS } from "../outcomes/insight-rollup.js";

export type BucketSize = "hour" | "day" | "week";

/** Most buckets one answer holds (docs/api.md#insights): 41 days of hours, almost three years of days. */
export const MAX_BUCKETS = 1000;

const DAY_MS = 24 * HOUR_MS;

/** A zone's offset from UTC at an instant (ms, east positive), read through Intl. */
class ZoneOffsets {
  private readonly format: Intl.DateTimeFormat;

  constructor(zone: string) {
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  }

  at(instant: number): number {
    const part: Record<string, number> = {};
    for (const { type, value } of this.format.formatToParts(instant)) part[type] = Number(value);
    const local = Date.UTC(
      part.year ?? 1970,
      (part.month ?? 1) - 1,
      part.day ?? 1,
      part.hour ?? 0,
      part.minute ?? 0,
      part.second ?? 0,
    );
    return local - (instant - (((instant % 1000) + 1000) % 1000));
  }

  /** The instant of local midnight starting the day `utcDay` (a Date.UTC of the local calendar date). */
  midnight(utcDay: number): number {
    let instant = utcDay - this.at(utcDay);
    instant = utcDay - this.at(instant);
    return instant;
  }

  /** Date.UTC of the local calendar date at `instant`. */
  localDay(instant: number): number {
    const local = instant + this.at(instant);
    return Math.floor(local / DAY_MS) * DAY_MS;
  }
}

/** Whether `zone` names a time zone this runtime knows (IANA names, e.g. Europe/Berlin, and UTC). */
export function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The starts of the buckets that overlap [from, to), and the end of the last: hours in UTC (an hour is an
 * hour in every zone whose offset is whole hours), days from local midnight, weeks from Monday's. Null
 * when that is more than MAX_BUCKETS.
 */
export function bucketStarts(
  size: BucketSize,
  from: number,
  to: number,
  zone: string,
): { starts: number[]; end: number } | null {
  const starts: number[] = [];
  if (size === "hour") {
    for (let start = Math.floor(from / HOUR_MS) * HOUR_MS; start < to; start += HOUR_MS) {
      if (starts.length === MAX_BUCKETS) return null;
      starts.push(start);
    }
    return { starts, end: (starts.at(-1) ?? from) + HOUR_MS };
  }
  const offsets = new ZoneOffsets(zone);
  const days = size === "day" ? 1 : 7;
  let day = offsets.localDay(from);
  // 1970-01-01 was a Thursday: days since a Monday are (epoch days + 3) mod 7.
  if (size === "week") day -= ((((day / DAY_MS + 3) % 7) + 7) % 7) * DAY_MS;
  for (let start = offsets.midnight(day); start < to;) {
    if (starts.length === MAX_BUCKETS) return null;
    starts.push(start);
    day += days * DAY_MS;
    start = offsets.midnight(day);
  }
  return { starts, end: offsets.midnight(day) };
}

/** The bucket an hour falls in: the last start at or before it (starts ascending), or -1. */
export function bucketIndex(starts: readonly number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (starts[mid]! <= at) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}
