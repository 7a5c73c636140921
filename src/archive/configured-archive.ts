// The archive a CLI command works on: the PostgreSQL at VERDICT_ARCHIVE_URL or, with the embedded Redis and
// no URL, the embedded PGlite of the data dir (reused when `verdict serve` serves it, else started for the
// command and stopped after it): the same choice as the service makes (src/app.ts).
import type { VerdictOptions } from "../config/options.js";
import { openArchive, type ArchiveSql } from "./archive-db.js";
import { startEmbeddedArchive } from "./embedded-archive.js";

export interface ConfiguredArchive {
  sql: ArchiveSql;
  close(): Promise<void>;
}

/** The configured archive, or undefined when there is none (a production Redis without VERDICT_ARCHIVE_URL). */
export async function openConfiguredArchive(options: VerdictOptions): Promise<ConfiguredArchive | undefined> {
  if (options.archiveUrl !== undefined) {
    const sql = openArchive(options.archiveUrl);
    return { sql, close: () => sql.end({ timeout: 5 }) };
  }
  if (options.redis.kind !== "embedded") return undefined;
  const embedded = await startEmbeddedArchive(options.redis.dataDir);
  const sql = openArchive({ socketPath: embedded.socketPath });
  return {
    sql,
    close: async () => {
      await sql.end({ timeout: 5 });
      await embedded.stop();
    },
  };
}
