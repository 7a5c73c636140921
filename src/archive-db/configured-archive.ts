// Which archive a process uses, decided in one place for the service (src/app.ts), the supervisor
// (src/cli/serve.ts) and the CLI commands: the PostgreSQL at VERDICT_ARCHIVE_URL or, with the embedded Redis
// and no URL, the embedded PGlite of the data dir (reused when another process of the data dir serves it,
// else started here and stopped by close).
import type { VerdictOptions } from "../config/options.js";
import type { Logger } from "../telemetry/logger.js";
import { archiveHost, migrate, openArchive, type ArchiveLocation, type ArchiveSql } from "./archive-db.js";
import { startEmbeddedArchive } from "./embedded-archive.js";

export interface ConfiguredArchive {
  sql: ArchiveSql;
  /** Where `sql` connects, for another connection to it (a worker thread's). */
  location: ArchiveLocation;
  /** For the start's log line: where the archive is (never a password). */
  where: string;
  /** Ends the pool, then stops the embedded archive if this process runs it. */
  close(): Promise<void>;
}

/** The configured archive, or undefined when there is none (a production Redis without VERDICT_ARCHIVE_URL). */
export async function openConfiguredArchive(options: VerdictOptions): Promise<ConfiguredArchive | undefined> {
  if (options.archiveUrl !== undefined) {
    const sql = openArchive(options.archiveUrl, options.archiveStallMs);
    return {
      sql,
      location: options.archiveUrl,
      where: `PostgreSQL at ${archiveHost(options.archiveUrl)}`,
      close: () => sql.end({ timeout: 5 }),
    };
  }
  if (options.redis.kind !== "embedded") return undefined;
  const embedded = await startEmbeddedArchive(options.redis.dataDir);
  const location = { socketPath: embedded.socketPath };
  const sql = openArchive(location);
  return {
    sql,
    location,
    where: `embedded PGlite at ${embedded.directory}${embedded.owned ? "" : " (served by another process of this data dir)"}`,
    close: async () => {
      await sql.end({ timeout: 5 });
      await embedded.stop();
    },
  };
}

/** The configured archive with its migrations applied (closed again when they fail), or undefined without one. */
export async function openMigratedArchive(
  options: VerdictOptions,
  logger: Logger,
): Promise<ConfiguredArchive | undefined> {
  const archive = await openConfiguredArchive(options);
  if (!archive) return undefined;
  logger.info({ archive: archive.where }, `archive: ${archive.where}`);
  try {
    const applied = await migrate(archive.sql);
    if (applied.length > 0) logger.info({ applied }, "archive migrations applied");
  } catch (error) {
    await archive.close();
    throw error;
  }
  return archive;
}
