// Events received per account and minute, for the dashboard's ingest chart: the worker counts each batch's
// events by the minute they were received at the edge into hourly hashes that expire on their own.

export const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** An hour's counts outlive it by a day: enough for any chart, and the keys clean up after themselves. */
export const INGEST_COUNT_TTL_MS = 25 * HOUR_MS;

/** The minute (epoch minutes) an instant falls in: the field of the hourly hash. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / MINUTE_MS);
}

/** The hour (epoch hours) a minute falls in: the hash that holds it. */
export function hourOfMinute(minute: number): number {
  return Math.floor((minute * MINUTE_MS) / HOUR_MS);
}

/** Events per account and minute of receipt. */
export function countByMinute(
  events: Iterable<{ accountId: string; receivedAt: number }>,
): Map<string, Map<number, number>> {
  const counts = new Map<string, Map<number, number>>();
  for (const { accountId, receivedAt } of events) {
    let minutes = counts.get(accountId);
    if (!minutes) counts.set(accountId, (minutes = new Map<number, number>()));
    const minute = minuteOf(receivedAt);
    minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
  }
  return counts;
}
