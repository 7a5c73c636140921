// Where an outcome stands, for the trajectory table: a progress decile and an elapsed decile.

/** Thresholds (ms since creation) of the ten time buckets used when an outcome has no deadline. */
const TIME_BUCKETS_MS = [1_000, 10_000, 60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000];

const decile = (fraction: number): number => Math.min(9, Math.max(0, Math.floor(fraction * 10)));

/**
 * The cell of the trajectory table for progress `progress` at instant `at`: 0-99 is progress decile x 10 +
 * elapsed-fraction decile (time since creation over the time from creation to settles_at); 100-199 is
 * the same with a time bucket in place of the fraction, for outcomes without a deadline.
 */
export function trajectoryCell(progress: number, createdAt: number, settlesAt: number | null, at: number): number {
  const p = decile(progress) * 10;
  if (settlesAt !== null && settlesAt > createdAt) return p + decile((at - createdAt) / (settlesAt - createdAt));
  const elapsed = at - createdAt;
  let bucket = 0;
  while (bucket < TIME_BUCKETS_MS.length && elapsed >= TIME_BUCKETS_MS[bucket]!) bucket++;
  return 100 + p + bucket;
}
