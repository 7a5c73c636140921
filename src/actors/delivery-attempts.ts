// Failed processing attempts per delivery, so a poison event never blocks its shard: a thrown (retryable)
// failure redoes the batch after a backoff, until the delivery has used up its attempts and is set aside
// as PROCESSING_FAILED with the error it kept raising. Kept in memory: a new owner of the shard counts
// again from zero, which only delays the dead letter.
import { deliveryOf, type DecodedEntry } from "./shard-entries.js";

export interface Exhausted {
  count: number;
  lastError: string;
}

export class DeliveryAttempts {
  private readonly failures = new Map<string, Exhausted>();

  constructor(private readonly maxAttempts: number) {}

  /** Counts a failed attempt of the delivery; returns how many it has had. */
  recordFailure(delivery: string, error: unknown): number {
    const count = (this.failures.get(delivery)?.count ?? 0) + 1;
    this.failures.set(delivery, { count, lastError: error instanceof Error ? error.message : String(error) });
    return count;
  }

  /**
   * The delivery's failures when it has used up its attempts; it is then forgotten (it goes to the DLQ).
   * Cheap while nothing failed: the delivery's name is built only when some delivery did.
   */
  takeExhausted(entryId: string, index: number): Exhausted | undefined {
    if (this.failures.size === 0) return undefined;
    const delivery = deliveryOf(entryId, index);
    const failed = this.failures.get(delivery);
    if (!failed || failed.count < this.maxAttempts) return undefined;
    this.failures.delete(delivery);
    return failed;
  }

  /** Forgets the entries' deliveries once they committed: one that failed before went through on a retry. */
  committed(entries: readonly DecodedEntry[]): void {
    if (this.failures.size === 0) return;
    for (const entry of entries) for (let i = 0; i < entry.size; i++) this.failures.delete(deliveryOf(entry.id, i));
  }
}
