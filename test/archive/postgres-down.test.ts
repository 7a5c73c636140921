// PostgreSQL out of reach for 30 s: events are accepted and verdicts made as before (new Variant B outcomes
// included), nothing leaves Redis
// while its rows cannot be committed, reads that need the archive answer 503, and once PostgreSQL is back
// the archive catches up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILTER_BITS, FILTER_LAYOUT_VERSION } from "../../src/archive-read/archived-filter.js";
import { shardOf } from "../../src/streams/shard.js";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { proxyFor, type TcpProxy } from "../support/tcp-proxy.js";

const OUTCOMES = 20;
const OUTAGE_MS = 30_000;

describe("PostgreSQL unreachable for 30 s", () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  /** The test stops the app itself at its end. */
  let stopped = false;

  beforeAll(async () => {
    db = await createTestDatabase();
    let archiveUrl: string;
    ({ proxy, url: archiveUrl } = await proxyFor(db.url));
    t = await startTestApp("standalone", { archiveUrl, hotRetentionMs: 1000 });
  }, 60_000);

  afterAll(async () => {
    if (!stopped) await t?.stop();
    await proxy?.close();
    await db?.drop();
  }, 60_000);

  const inRedis = async (keys: readonly string[]): Promise<number> =>
    (
      await Promise.all(
        keys.map((key) =>
          t.app.redis.exists(t.app.keys.outcome(shardOf(t.accountId, key, t.options.shards), t.accountId, key)),
        ),
      )
    ).reduce((a, b) => a + b, 0);

  const status = async (key: string): Promise<string> =>
    ((await t.request("GET", `/v1/outcomes/${key}`)).body as { status: string }).status;

  it("goes on ingesting and deciding, keeps everything in Redis, then catches up", async () => {
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/tasks/t", { name: "t", condition: "done" });
    await put("/v1/agents/closer", { name: "closer", condition: "step AND done" });
    await put("/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    const taskKeys = Array.from({ length: OUTCOMES }, (_, i) => `a-${i}`);
    const agentKeys = Array.from({ length: OUTCOMES }, (_, i) => `b-${i}`);
    const newKeys = Array.from({ length: OUTCOMES }, (_, i) => `n-${i}`);
    const all = [...taskKeys, ...agentKeys, ...newKeys];
    for (const key of taskKeys)
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    const started = await t.request("POST", "/v1/events/batch", {
      events: agentKeys.map((key) => ({ key, customer_key: "acme", action: "step" })),
    });
    expect((started.body as { failed: unknown[] }).failed).toEqual([]);
    await eventually(
      async () => ((await inRedis(agentKeys)) === OUTCOMES ? true : undefined),
      10_000,
      "the Variant B outcomes created",
    );

    // New keys skip PostgreSQL only once the shards' filters are rebuilt from the archive (at start, or
    // 10 s after an attempt that failed): on a busy machine that can come after this point, and the test is
    // about an outage of an archive the service had reached.
    const filtersReady = async (): Promise<true | undefined> => {
      const versions = await Promise.all(
        Array.from(
          { length: t.options.shards },
          (_, shard) =>
            t.app.redis.call("BITFIELD", t.app.keys.archivedFilter(shard), "GET", "u8", FILTER_BITS) as Promise<
              number[]
            >,
        ),
      );
      return versions.every(([version]) => version === FILTER_LAYOUT_VERSION) ? true : undefined;
    };
    await eventually(filtersReady, 30_000, "the archived-outcome filters rebuilt");

    proxy.cut();
    const cutAt = Date.now();
    const done = [
      ...taskKeys.map((key) => ({ outcome_key: key, action: "done" })),
      ...agentKeys.map((key) => ({ key, customer_key: "acme", action: "done" })),
    ];
    const reply = await t.request("POST", "/v1/events/batch", { events: done });
    expect(reply.status).toBe(202);
    expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    for (const key of [...taskKeys, ...agentKeys])
      await eventually(
        async () => ((await status(key)) === "CONFIRMED" ? true : undefined),
        10_000,
        `${key} confirmed while PostgreSQL is away`,
      );
    // New Variant B outcomes too: the shards' filters of archived outcomes tell their keys were never
    // archived, so their first events need no answer from PostgreSQL.
    const created = await t.request("POST", "/v1/events/batch", {
      events: newKeys.flatMap((key) => ["step", "done"].map((action) => ({ key, customer_key: "acme", action }))),
    });
    expect((created.body as { failed: unknown[] }).failed).toEqual([]);
    for (const key of newKeys)
      await eventually(
        async () =>
          (await t.request("GET", `/v1/outcomes/${key}`)).status === 200 && (await status(key)) === "CONFIRMED"
            ? true
            : undefined,
        10_000,
        `new ${key} confirmed while PostgreSQL is away`,
      );
    // A read that needs the archive says so rather than answering without it.
    const charges = await t.request("GET", "/v1/charges");
    expect(charges.status).toBe(503);
    expect((charges.body as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");

    // Long past the retention, nothing has left Redis, and the failures are counted.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - cutAt))));
    expect(await inRedis(all)).toBe(3 * OUTCOMES);
    expect(await metricValue(t.app.metricsPort, "verdict_archive_errors_total")).toBeGreaterThan(0);

    proxy.restore();
    await eventually(async () => ((await inRedis(all)) === 0 ? true : undefined), 30_000, "the archive caught up");
    const rows = await db.sql<
      { n: string }[]
    >`SELECT count(*) AS n FROM outcomes WHERE account_id = ${t.accountId} AND status = 'CONFIRMED'`;
    expect(Number(rows[0]!.n)).toBe(3 * OUTCOMES);
    for (const key of all) expect(await status(key)).toBe("CONFIRMED");
    const listed = (await t.request("GET", "/v1/charges?limit=100")).body as { charges: unknown[] };
    expect(listed.charges).toHaveLength(2 * OUTCOMES);

    // Cut again, with outcomes due: stopping must not wait for PostgreSQL. A connection accepted and closed
    // before the server's first byte used to be retried by postgres.js for as long as that went on, and the
    // archiver's pass, which the worker's stop awaits, with it.
    const late = Array.from({ length: 5 }, (_, i) => `late-${i}`);
    for (const key of late) expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    proxy.cut();
    expect(
      (
        await t.request("POST", "/v1/events/batch", {
          events: late.map((key) => ({ outcome_key: key, action: "done" })),
        })
      ).status,
    ).toBe(202);
    for (const key of late)
      await eventually(
        async () => ((await status(key)) === "CONFIRMED" ? true : undefined),
        10_000,
        `${key} confirmed`,
      );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    stopped = true;
    const stopAt = Date.now();
    await t.stop();
    expect(Date.now() - stopAt).toBeLessThan(20_000);
  }, 150_000);
});
