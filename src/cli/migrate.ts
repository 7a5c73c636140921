// `verdict migrate`: applies the archive's migrations (VERDICT_ARCHIVE_URL, or the embedded archive of the
// data dir) and prints {"applied": [...]}; workers also apply them at start, so this is for deploying the
// schema ahead of them.
import { migrate } from "../archive-db/archive-db.js";
import { openConfiguredArchive } from "../archive-db/configured-archive.js";
import { optionsFromEnv } from "../config/env.js";

export async function run(args: string[]): Promise<number> {
  const options = optionsFromEnv(process.env);
  const archive = args.length === 0 ? await openConfiguredArchive(options) : undefined;
  if (archive === undefined) {
    process.stderr.write(
      "usage: VERDICT_ARCHIVE_URL=postgres://... verdict migrate (or with the embedded Redis: no REDIS_URL)\n",
    );
    return 2;
  }
  try {
    process.stdout.write(`${JSON.stringify({ applied: await migrate(archive.sql) })}\n`);
    return 0;
  } finally {
    await archive.close();
  }
}
