// A worker killed (SIGKILL) between committing dead letters to PostgreSQL and recording that it copied them
// loses and doubles nothing: the next owner of its shards copies them again (a change of nothing), deletes
// them from Redis, and GET /v1/dlq lists each letter once, with the same id, before and after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";

const LETTERS = 30;

describe("dead-letter archive crash between the PostgreSQL commit and the Redis record", () => {
  let db: TestDatabase;
  let t: TestApp;
  const workers: VerdictProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    // This process takes HTTP only; the workers are separate processes, the first armed to crash.
    t = await startTestApp("standalone", { role: "ingress", archiveUrl: db.url, leaseTtlMs: 1000 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.stop();
    await db?.drop();
  }, 60_000);

  const rows = async (): Promise<string[]> =>
    (
      await db.sql<
        { id: string }[]
      >`SELECT shard || '-' || entry_ms || '-' || entry_seq AS id FROM dead_letters WHERE account_id = ${t.accountId}`
    ).map((row) => row.id);
  const hot = async (): Promise<number> => {
    let total = 0;
    for (let shard = 0; shard < t.options.shards; shard++)
      total += await t.app.redis.xlen(t.app.keys.deadLetters(shard, t.accountId));
    return total;
  };
  const listed = async (): Promise<string[]> =>
    ((await t.request("GET", "/v1/dlq?limit=1000")).body as { dead_letters: { id: string }[] }).dead_letters.map(
      (letter) => letter.id,
    );

  it("finishes the move after a restart with every letter once", async () => {
    const env = { ...envFor(t.options), VERDICT_ARCHIVE_URL: db.url, VERDICT_DLQ_RETENTION: "1s" };
    workers.push(await spawnVerdict("worker", { ...env, VERDICT_FAULT_POINT: "dead-letters-before-record" }));
    const events = Array.from({ length: LETTERS }, (_, i) => ({ outcome_key: `never-opened-${i}`, action: "step" }));
    expect((await t.request("POST", "/v1/events/batch", { events })).status).toBe(202);

    // The armed worker commits the first rows, then dies as it is about to record them.
    const crashed = workers[0]!;
    await eventually(
      () => Promise.resolve(crashed.child.signalCode === "SIGKILL" ? true : undefined),
      30_000,
      "the armed worker killed at its fault point",
    );
    expect((await rows()).length).toBeGreaterThan(0);
    expect(await hot()).toBe(LETTERS);
    const before = await listed();
    expect(before).toHaveLength(LETTERS);

    workers.push(await spawnVerdict("worker", env));
    await eventually(
      async () => ((await hot()) === 0 ? true : undefined),
      60_000,
      "every letter deleted from Redis by the next owner",
    );
    expect((await rows()).sort()).toEqual([...before].sort());
    expect(await listed()).toEqual(before);
  }, 120_000);
});
