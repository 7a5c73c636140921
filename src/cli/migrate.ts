// `verdict migrate`: applies the archive's PostgreSQL migrations (VERDICT_ARCHIVE_URL) and prints
// {"applied": [...]}; workers also apply them at start, so this is for deploying the schema ahead of them.
import { migrate, openArchive } from "../archive/archive-db.js";
import { optionsFromEnv } from "../config/env.js";

export async function run(args: string[]): Promise<number> {
  const options = optionsFromEnv(process.env);
  if (args.length > 0 || options.archiveUrl === undefined) {
    process.stderr.write("usage: VERDICT_ARCHIVE_URL=postgres://... verdict migrate\n");
    return 2;
  }
  const sql = openArchive(options.archiveUrl);
  try {
    process.stdout.write(`${JSON.stringify({ applied: await migrate(sql) })}\n`);
    return 0;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
