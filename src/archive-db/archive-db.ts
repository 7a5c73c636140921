// The archive's PostgreSQL: one connection pool per process and the schema's versioned migrations, applied
// in order under an advisory lock so that processes starting together apply each one once.
import { readdirSync, readFileSync } from "node:fs";
import postgres from "postgres";
import { DEFAULT_OPTIONS } from "../config/options.js";
import { stallGuardedSocket } from "./stall-guarded-socket.js";

export type ArchiveSql = postgres.Sql;

const MIGRATIONS = new URL("./migrations/", import.meta.url);
const CONNECT_TIMEOUT_S = 5;

/**
 * Seconds before a pool connection is tried again after `retries` connections closed on an error (shared
 * by the pool). postgres.js's own grows as 3^retries / 100 up to 20 s: after a few dozen failed passes
 * during an outage, a statement asked for then (the archiver's next pass, or the one a stopping process
 * waits for) waited up to 20 s for the next attempt, and the archive caught up that long after PostgreSQL
 * came back. Capped at 1-2 s (jittered), a PostgreSQL that is down sees at most one attempt a second per
 * pool connection once the cap is reached.
 */
export function reconnectBackoff(retries: number): number {
  return Math.min(2, 0.05 * 2 ** retries) * (0.5 + Math.random() / 2);
}

/** Any constant shared by every Verdict process: the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 0x5645524449435421n;

/** A PostgreSQL URL, or the unix socket of the embedded archive (src/archive-db/embedded-archive.ts). */
export type ArchiveLocation = string | { socketPath: string };

/**
 * The archive's pool. A PostgreSQL over the network gets connections that give up on a silent peer after
 * `stallMs` (see stall-guarded-socket.ts); the embedded archive's socket is local, and a statement there may
 * rightly wait behind another one (PGlite runs one at a time).
 */
export function openArchive(location: ArchiveLocation, stallMs = DEFAULT_OPTIONS.archiveStallMs): ArchiveSql {
  // Notices (e.g. "relation already exists, skipping") are expected and not worth a log line each.
  const common = {
    onnotice: () => {},
    connect_timeout: CONNECT_TIMEOUT_S,
    idle_timeout: 30,
    backoff: reconnectBackoff,
  };
  if (typeof location === "string") {
    // `socket` is a documented option postgres.js's types leave out; a variable, not a literal, passes it.
    const network = { ...common, max: 4, socket: stallGuardedSocket(stallMs, CONNECT_TIMEOUT_S * 1000) };
    return postgres(location, network);
  }
  // The embedded archive runs one statement at a time for everyone (one PGlite session), so more connections
  // would only wait; two let a read queue while a transaction runs instead of behind it in the client.
  return postgres({ ...common, path: location.socketPath, username: "postgres", database: "postgres", max: 2 });
}

/** Where a URL's archive is, for a log line: host, port and database, never the user or password. */
export function archiveHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return "(unparseable URL)";
  }
}

/** Applies the migrations not yet applied; returns the versions it applied. */
export async function migrate(sql: ArchiveSql): Promise<string[]> {
  const files = readdirSync(MIGRATIONS)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort();
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set(
      (await tx<{ version: string }[]>`SELECT version FROM schema_migrations`).map((row) => row.version),
    );
    const applied: string[] = [];
    for (const file of files) {
      const version = file.slice(0, -".sql".length);
      if (done.has(version)) continue;
      await tx.unsafe(readFileSync(new URL(file, MIGRATIONS), "utf8"));
      await tx`INSERT INTO schema_migrations (version) VALUES (${version})`;
      applied.push(version);
    }
    return applied;
  });
}
