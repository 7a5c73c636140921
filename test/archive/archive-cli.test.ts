// `verdict archive run` for a deployment that turns the archive on after running without it: outcomes
// settled before then are found, queued and moved by the running workers, and the command says how many.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/streams/shard.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { envFor } from "../support/processes.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const OUTCOMES = 12;

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("verdict archive run", () => {
  let db: TestDatabase;
  let before: TestApp;
  let after: TestApp | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    before = await startTestApp("standalone");
  }, 60_000);

  afterAll(async () => {
    await after?.stop();
    await db?.drop();
  }, 60_000);

  it("moves the outcomes settled before the archive was turned on", async () => {
    expect((await before.request("PUT", "/v1/tasks/t", { name: "t", condition: "done" })).status).toBe(201);
    const keys = Array.from({ length: OUTCOMES }, (_, i) => `old-${i}`);
    for (const key of keys)
      expect((await before.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    await before.request("POST", "/v1/events/batch", {
      events: keys.map((key) => ({ outcome_key: key, action: "done" })),
    });
    for (const key of keys)
      await eventually(
        async () =>
          ((await before.request("GET", `/v1/outcomes/${key}`)).body as { status: string }).status === "CONFIRMED"
            ? true
            : undefined,
        10_000,
        key,
      );
    const { accountId, token } = before;
    await before.stop();

    // The same deployment, now with an archive: the old verdicts are in no settled index, so nothing moves.
    after = await startTestApp("standalone", {
      keyPrefix: before.options.keyPrefix,
      tokenSecret: before.options.tokenSecret,
      archiveUrl: db.url,
      hotRetentionMs: 1000,
    });
    const snapshots = async (): Promise<number> =>
      (
        await Promise.all(
          keys.map((key) =>
            after!.app.redis.exists(
              after!.app.keys.outcome(shardOf(accountId, key, after!.options.shards), accountId, key),
            ),
          ),
        )
      ).reduce((a, b) => a + b, 0);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await snapshots()).toBe(OUTCOMES);

    const result = await runCli(["archive", "run"], {
      ...envFor(after.options),
      VERDICT_ARCHIVE_URL: db.url,
      VERDICT_HOT_RETENTION: "1s",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ queued: OUTCOMES });
    await eventually(
      async () => ((await snapshots()) === 0 ? true : undefined),
      30_000,
      "the old outcomes deleted from Redis",
    );
    const rows = await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes WHERE account_id = ${accountId}`;
    expect(Number(rows[0]!.n)).toBe(OUTCOMES);
    const read = await fetch(`${after.base}/v1/outcomes/${keys[0]}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await read.json()) as { status: string }).status).toBe("CONFIRMED");
  }, 120_000);
});
