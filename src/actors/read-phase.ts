// Where a shard actor's reading stands: what its next read asks for, and whether due verdicts may be made.

/**
 * - "takeover": the earlier owners' pending entries are not ours yet (claimed before the first read);
 * - "pending": our own pending entries (redeliveries, retries, claimed entries) are read before new ones;
 * - "fresh": new entries are read, and the stream may hold more;
 * - "drained": the last read of new entries came back short: events received so far are applied, so due
 *   verdicts may be made.
 */
export type ReadPhase = "takeover" | "pending" | "fresh" | "drained";

/** The phase after a read of `read` entries out of `asked`. */
export function afterRead(phase: ReadPhase, read: number, asked: number): ReadPhase {
  if (phase === "takeover") return phase;
  // Pending entries are read until none is left; only then are new ones.
  if (phase === "pending") return read === 0 ? "fresh" : "pending";
  return read < asked ? "drained" : "fresh";
}
