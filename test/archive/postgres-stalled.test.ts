// PostgreSQL stops answering without closing anything (a partition that drops packets, a host that died):
// TCP alone would keep a statement waiting for about 15 minutes. A read that needs the archive answers 503
// within the stall bound, events are applied as before, the archiver's stuck transaction is given up and
// retried once PostgreSQL answers again, and the service stops within its grace while PostgreSQL is silent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/streams/shard.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { proxyFor, type TcpProxy } from "../support/tcp-proxy.js";

const STALL_MS = 1_500;

describe("PostgreSQL silent", () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  /** The test stops the app itself at its end. */
  let stopped = false;

  beforeAll(async () => {
    db = await createTestDatabase();
    let archiveUrl: string;
    ({ proxy, url: archiveUrl } = await proxyFor(db.url));
    t = await startTestApp("standalone", { archiveUrl, hotRetentionMs: 500, archiveStallMs: STALL_MS });
  }, 60_000);

  afterAll(async () => {
    proxy?.thaw();
    if (!stopped) await t?.stop();
    await proxy?.close();
    await db?.drop();
  }, 60_000);

  it("answers 503 within the stall bound, goes on deciding, catches up, and stops", async () => {
    const inRedis = async (key: string): Promise<boolean> =>
      (await t.app.redis.exists(t.app.keys.outcome(shardOf(t.accountId, key, t.options.shards), t.accountId, key))) ===
      1;
    const status = async (key: string): Promise<string> =>
      ((await t.request("GET", `/v1/outcomes/${key}`)).body as { status: string }).status;
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "done" })).status).toBeLessThan(300);
    for (const key of ["before", "during"])
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    expect((await t.request("POST", "/v1/events", { outcome_key: "before", action: "done" })).status).toBe(202);
    await eventually(async () => ((await inRedis("before")) ? undefined : true), 20_000, "the first outcome archived");
    expect((await t.request("GET", "/v1/charges")).status).toBe(200);

    proxy.freeze();
    // The pool's connections are open and silent: a read that needs the archive must not wait on them.
    const askedAt = Date.now();
    const charges = await t.request("GET", "/v1/charges");
    expect(charges.status).toBe(503);
    expect((charges.body as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");
    expect(Date.now() - askedAt).toBeLessThan(STALL_MS + 5_000);
    // Verdicts go on; the settled outcome stays in Redis while its archive transaction cannot finish.
    expect((await t.request("POST", "/v1/events", { outcome_key: "during", action: "done" })).status).toBe(202);
    await eventually(
      async () => ((await status("during")) === "CONFIRMED" ? true : undefined),
      10_000,
      "confirmed while PostgreSQL is silent",
    );
    await new Promise((resolve) => setTimeout(resolve, 3 * STALL_MS));
    expect(await inRedis("during")).toBe(true);

    proxy.thaw();
    await eventually(async () => ((await inRedis("during")) ? undefined : true), 30_000, "the archive caught up");
    const rows = await db.sql<
      { key: string }[]
    >`SELECT key FROM outcomes WHERE account_id = ${t.accountId} AND status = 'CONFIRMED' ORDER BY key`;
    expect(rows.map((row) => row.key)).toEqual(["before", "during"]);
    expect(await status("during")).toBe("CONFIRMED");

    // Silent again: stopping must not wait for PostgreSQL.
    proxy.freeze();
    stopped = true;
    const stopAt = Date.now();
    await t.stop();
    expect(Date.now() - stopAt).toBeLessThan(STALL_MS + 10_000);
  }, 120_000);
});
