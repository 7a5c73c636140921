// A worker killed (SIGKILL) between committing archived outcomes to PostgreSQL and deleting them from Redis
// loses and doubles nothing: the next owner of its shards finds the outcomes in both, deletes them from
// Redis, and PostgreSQL holds each outcome, event and charge once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf as outcomeShard } from "../../src/streams/shard.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";

const OUTCOMES = 40;

describe("archive crash between the PostgreSQL commit and the Redis delete", () => {
  let db: TestDatabase;
  let t: TestApp;
  const workers: VerdictProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    // This process takes HTTP only; the workers are separate processes, the first armed to crash.
    t = await startTestApp("standalone", {
      role: "ingress",
      archiveUrl: db.url,
      hotRetentionMs: 1000,
      leaseTtlMs: 1000,
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.stop();
    await db?.drop();
  }, 60_000);

  const count = async (table: "outcomes" | "outcome_events" | "charges"): Promise<number> =>
    Number(
      (await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM ${db.sql(table)} WHERE account_id = ${t.accountId}`)[0]!
        .n,
    );

  const snapshotsInRedis = async (keys: readonly string[]): Promise<number> =>
    (
      await Promise.all(keys.map((key) => t.app.redis.exists(t.app.keys.outcome(shardOf(key), t.accountId, key))))
    ).reduce((a, b) => a + b, 0);

  const shardOf = (key: string): number => outcomeShard(t.accountId, key, t.options.shards);

  it("finishes the move after a restart with every outcome, event and charge once", async () => {
    const env = { ...envFor(t.options), VERDICT_ARCHIVE_URL: db.url, VERDICT_HOT_RETENTION: "1s" };
    workers.push(await spawnVerdict("worker", { ...env, VERDICT_FAULT_POINT: "archive-before-delete" }));
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/agents/closer", { name: "closer", condition: "done" });
    await put("/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    const keys = Array.from({ length: OUTCOMES }, (_, i) => `crash-${i}`);
    const reply = await t.request("POST", "/v1/events/batch", {
      events: keys.map((key) => ({ key, customer_key: "acme", action: "done", idempotency_key: `${key}-done` })),
    });
    expect((reply.body as { failed: unknown[] }).failed).toEqual([]);

    // The armed worker commits the rows, then dies as it is about to delete the keys.
    const crashed = workers[0]!;
    await eventually(
      () => Promise.resolve(crashed.child.signalCode === "SIGKILL" ? true : undefined),
      30_000,
      "the armed worker killed at its fault point",
    );
    expect(await count("outcomes")).toBe(OUTCOMES);
    expect(await snapshotsInRedis(keys)).toBe(OUTCOMES);
    const before = await Promise.all(keys.map(async (key) => (await t.request("GET", `/v1/outcomes/${key}`)).body));

    workers.push(await spawnVerdict("worker", env));
    await eventually(
      async () => ((await snapshotsInRedis(keys)) === 0 ? true : undefined),
      30_000,
      "every snapshot deleted from Redis by the next owner",
    );
    expect(await count("outcomes")).toBe(OUTCOMES);
    expect(await count("outcome_events")).toBe(OUTCOMES);
    await eventually(
      async () => ((await count("charges")) === OUTCOMES ? true : undefined),
      10_000,
      "every charge archived once",
    );
    const after = await Promise.all(keys.map(async (key) => (await t.request("GET", `/v1/outcomes/${key}`)).body));
    expect(after).toEqual(before);
    const charges = (await t.request("GET", "/v1/charges?limit=1000")).body as { charges: { outcome_key: string }[] };
    expect(charges.charges.map((c) => c.outcome_key).sort()).toEqual([...keys].sort());
  }, 120_000);
});
