// Durations: the short grammar (`1d12h`), ISO 8601 on input (`P1DT2H`), canonical and countdown printing.
import { ConditionParseError } from "./errors.js";

const SECOND = 1000;
const UNITS = [
  { suffix: "w", ms: 7 * 24 * 3600 * SECOND },
  { suffix: "d", ms: 24 * 3600 * SECOND },
  { suffix: "h", ms: 3600 * SECOND },
  { suffix: "m", ms: 60 * SECOND },
  { suffix: "s", ms: SECOND },
] as const;

// Units largest first, each at most once: `90m` and `1d12h` parse, `12h1d` and `1h1h` do not.
const SHORT = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
// ISO 8601 without years and months, whose length depends on the calendar.
const ISO = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * Longest duration (settlement periods, IDLE windows): 10 years of 365 days. Instants end at year 9999, so
 * an instant plus a duration always stays a valid date; a period of 99999999d made every read a RangeError.
 */
export const MAX_DURATION_MS = 3650 * 24 * 3600 * SECOND;

/** Milliseconds in a duration such as `30s`, `1d12h`, `90m` or ISO `P1DT2H`; zero is allowed. */
export function parseDuration(text: string): number {
  const match = SHORT.exec(text) ?? ISO.exec(text);
  // Empty text, a bare `P` and a `T` with nothing after it match the patterns but say nothing.
  if (match === null || text === "" || text === "P" || text.endsWith("T")) {
    throw new ConditionParseError(
      `invalid duration ${JSON.stringify(text)}: expected e.g. 30s, 15m, 2h, 1d, 1w, 1d12h or ISO 8601 P1DT2H`,
    );
  }
  let total = 0;
  UNITS.forEach((unit, i) => {
    const digits = match[i + 1];
    if (digits !== undefined) total += Number(digits) * unit.ms;
  });
  if (!Number.isSafeInteger(total) || total > MAX_DURATION_MS) {
    throw new ConditionParseError(`duration ${JSON.stringify(text)} is too long: at most 10 years (3650d)`);
  }
  return total;
}

/** Canonical text of a duration, largest unit first, whole seconds: 90m -> `1h30m`, 7d -> `1w`, 0 -> `0s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`not a duration: ${ms}`);
  let rest = Math.floor(ms / SECOND) * SECOND;
  let text = "";
  for (const unit of UNITS) {
    const amount = Math.floor(rest / unit.ms);
    if (amount > 0) {
      text += `${amount}${unit.suffix}`;
      rest -= amount * unit.ms;
    }
  }
  return text === "" ? "0s" : text;
}

/**
 * Time left on an IDLE window as the annotation shows it: floored to whole seconds, the largest unit and
 * the next smaller one, that one dropped when zero (`23h59m`, `1h`, `1w6d`, `0s`).
 */
export function formatRemaining(ms: number): string {
  const seconds = ms > 0 ? Math.floor(ms / SECOND) : 0;
  for (let i = 0; i < UNITS.length; i++) {
    const unit = UNITS[i];
    if (unit === undefined) break;
    const unitSeconds = unit.ms / SECOND;
    if (seconds < unitSeconds) continue;
    const amount = Math.floor(seconds / unitSeconds);
    const next = UNITS[i + 1];
    if (next === undefined) return `${amount}${unit.suffix}`;
    const nextSeconds = next.ms / SECOND;
    const nextAmount = Math.floor((seconds - amount * unitSeconds) / nextSeconds);
    return nextAmount > 0 ? `${amount}${unit.suffix}${nextAmount}${next.suffix}` : `${amount}${unit.suffix}`;
  }
  return "0s";
}
