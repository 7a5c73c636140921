// How much one shard commit may carry. Every call to Redis, any account's enqueue included, waits behind a
// running script, so a read full of costly events (one account's dead letters, each a letter and a webhook
// notification) is committed in several calls, each of whole stream entries, rather than in one.
import type { BatchCommit } from "./batch-commit.js";

/** Staged bytes past which a batch takes no further entry (an oversized event's whole copy is one write). */
export const COMMIT_MAX_BYTES = 1024 * 1024;

/**
 * Whether a batch staging into `commit` should end at the entry boundary it has reached: once its writes
 * (BatchCommit.work, plus a snapshot write still to be staged per outcome the fold changed) reach
 * `maxWrites` (options.commitMaxWrites), or its bytes COMMIT_MAX_BYTES. An entry holds at most one
 * request's events, so a commit carries at most that plus one entry's writes.
 */
export function commitFull(
  commit: Pick<BatchCommit, "work" | "bytes">,
  changedOutcomes: number,
  maxWrites: number,
): boolean {
  return commit.work + changedOutcomes >= maxWrites || commit.bytes >= COMMIT_MAX_BYTES;
}
