// What a dead letter's replay claims in its outcome's idempotency hash, so a replay whose enqueue could not
// be confirmed (the letter is put back) can be replayed again without the event applying twice.

/**
 * The hash field for replays of the delivery `source` (DeadLetterRecord.source). It starts with byte 0xFF,
 * which no UTF-8 text has, so it can never equal a client's idempotency_key in the same hash.
 */
export function replayClaim(source: string): Buffer {
  return Buffer.concat([Buffer.from([0xff]), Buffer.from(`replay:${source}`)]);
}
