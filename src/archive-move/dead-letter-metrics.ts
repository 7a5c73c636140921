// The dead-letter archiver's metrics, registered once per worker process whether or not an archive is configured.
import { Counter, type Registry } from "prom-client";

export interface DeadLetterArchiveMetrics {
  /** Letters deleted from Redis after their rows committed in PostgreSQL. */
  archived: Counter;
  /** Letters deleted from Redis without an archive, by why: past the retention or beyond the count. */
  dropped: Counter<"reason">;
  errors: Counter;
}

export function createDeadLetterArchiveMetrics(registry: Registry): DeadLetterArchiveMetrics {
  const registers = [registry];
  return {
    archived: new Counter({
      name: "verdict_dead_letters_archived_total",
      help: "Dead letters moved to PostgreSQL (rows committed, then deleted from Redis)",
      registers,
    }),
    dropped: new Counter({
      name: "verdict_dead_letters_dropped_total",
      help: "Dead letters deleted from Redis without an archive configured: past VERDICT_DLQ_RETENTION (reason age) or beyond VERDICT_DLQ_MAX_PER_ACCOUNT (reason count)",
      labelNames: ["reason"],
      registers,
    }),
    errors: new Counter({
      name: "verdict_dead_letters_archive_errors_total",
      help: "Dead-letter archive passes that failed; Redis keeps the letters and the next pass retries",
      registers,
    }),
  };
}
