// Instants clients send (settles_at, charge ranges): RFC 3339 date-times of real calendar dates from 1970
// to 9999. Date.parse alone rolls 2030-02-31 over to March 3 and reaches back before 1970, where the
// due-time index (scores below 0 mean "none") would never fire.

/** Earliest instant accepted: 1970-01-01T00:00:00Z. */
export const MIN_INSTANT_MS = 0;
/** Latest instant accepted: 9999-12-31T23:59:59.999Z. */
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const INSTANT_RULE = "an RFC 3339 date-time (e.g. 2030-01-31T12:00:00Z) of a real date from 1970 to 9999";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Epoch milliseconds of `text`, or undefined unless it is {@link INSTANT_RULE}. */
export function parseInstant(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part)));
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth(year!, month!)) return undefined;
  // No leap seconds: JavaScript time has none, and 23:59:60 would silently become the next minute.
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHours! > 23 || offsetMinutes! > 59) return undefined;
  // Every part is checked, so Date.parse (which reads exactly this form) returns this very instant.
  const ms = Date.parse(text);
  return ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS ? ms : undefined;
}
