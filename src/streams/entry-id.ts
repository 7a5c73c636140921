// Stream entry ids ("<ms>-<seq>", decimal without leading zeros) in order: the actor's redelivery check
// runs it per event, so it compares digits in place and builds no strings or arrays.

/** Compares the decimals a[aFrom, aTo) and b[bFrom, bTo): the longer is larger, else the first differing digit. */
function compareDecimals(a: string, aFrom: number, aTo: number, b: string, bFrom: number, bTo: number): number {
  const byLength = aTo - aFrom - (bTo - bFrom);
  if (byLength !== 0) return byLength;
  for (let i = 0; i < aTo - aFrom; i++) {
    const byDigit = a.charCodeAt(aFrom + i) - b.charCodeAt(bFrom + i);
    if (byDigit !== 0) return byDigit;
  }
  return 0;
}

/** Negative, zero or positive as `a` comes before, equals or comes after `b` (a missing sequence is 0). */
export function compareEntryIds(a: string, b: string): number {
  const aDash = a.indexOf("-");
  const bDash = b.indexOf("-");
  const byMs = compareDecimals(a, 0, aDash < 0 ? a.length : aDash, b, 0, bDash < 0 ? b.length : bDash);
  if (byMs !== 0) return byMs;
  const aSeq = aDash < 0 ? "0" : a;
  const bSeq = bDash < 0 ? "0" : b;
  return compareDecimals(aSeq, aDash < 0 ? 0 : aDash + 1, aSeq.length, bSeq, bDash < 0 ? 0 : bDash + 1, bSeq.length);
}

/** The milliseconds part of an entry id: when Redis appended it (by its own clock). */
export function entryTimeMs(id: string): number {
  const dash = id.indexOf("-");
  return Number(dash < 0 ? id : id.slice(0, dash));
}

/** Redis's largest entry id: nothing can follow it, so an exclusive range from it is an error there. */
export const LAST_ENTRY_ID = "18446744073709551615-18446744073709551615";

const ENTRY_ID = /^(0|[1-9]\d{0,19})-(0|[1-9]\d{0,19})$/;
const MAX_PART = 18446744073709551615n;

/**
 * True for an id as Redis writes one: two decimals without leading zeros, each at most 2^64-1. Anything
 * else given to XRANGE is an "Invalid stream ID" error, which must not reach Redis from a client's input.
 */
export function isEntryId(text: string): boolean {
  const match = ENTRY_ID.exec(text);
  return match !== null && BigInt(match[1]!) <= MAX_PART && BigInt(match[2]!) <= MAX_PART;
}
