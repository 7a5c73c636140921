// Redis memory is bounded by the open work, not by history: 200,000 outcomes settle with a 5 s hot
// retention on a Redis of this test's own, and once they have moved to PostgreSQL its used_memory is back
// within 20% of where it started. Then FLUSHALL: PostgreSQL still holds every charge.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

const OUTCOMES = 200_000;
const WARM_UP = 500;
const BATCH = 500;
const IN_FLIGHT = 4;

describe("Redis memory with the archive", () => {
  let redis: PrivateRedis;
  let db: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    redis = await startPrivateRedis(["--maxmemory-policy", "noeviction"]);
    db = await createTestDatabase();
    t = await startTestApp("standalone", {
      redis: { kind: "standalone", url: redis.url },
      archiveUrl: db.url,
      hotRetentionMs: 5000,
      enqueueTimeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await db?.drop();
    await redis?.cleanup();
  }, 60_000);

  const usedMemory = async (): Promise<number> =>
    Number(/used_memory:(\d+)/.exec(await t.app.redis.info("memory"))?.[1]);

  const archivedCount = async (): Promise<number> =>
    Number((await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes WHERE account_id = ${t.accountId}`)[0]!.n);

  /**
   * Whether every settled outcome and charge has left Redis: nothing waits in a shard's archive indexes or
   * queues, nor in its webhook outbox (a verdict's notification, dropped once fanned out to no endpoint).
   */
  async function drained(): Promise<boolean> {
    const { keys } = t.app;
    for (let shard = 0; shard < t.options.shards; shard++) {
      const waiting =
        (await t.app.redis.zcard(keys.settled(shard))) +
        (await t.app.redis.zcard(keys.archived(shard))) +
        (await t.app.redis.xlen(keys.chargesToArchive(shard))) +
        (await t.app.redis.xlen(keys.chargesArchived(shard))) +
        (await t.app.redis.xlen(keys.charges(shard, t.accountId))) +
        (await t.app.redis.xlen(keys.webhookOutbox(shard)));
      if (waiting > 0) return false;
    }
    return true;
  }

  /** Sends `count` events that each create and confirm one outcome, `IN_FLIGHT` batches at a time. */
  async function settle(prefix: string, count: number): Promise<void> {
    let next = 0;
    const sender = async (): Promise<void> => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + BATCH);
        const events = Array.from({ length: next - from }, (_, i) => ({
          key: `${prefix}-${from + i}`,
          customer_key: "acme",
          action: "done",
        }));
        const reply = await t.request("POST", "/v1/events/batch", { events });
        expect(reply.status).toBe(202);
        expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
  }

  it("ends within 20% of where it started after 200,000 outcomes settle", async () => {
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/agents/closer", { name: "closer", condition: "done" });
    await put("/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    // Warm up every shard (streams, scripts, per-shard indexes exist), then measure where Redis starts.
    await settle("warm", WARM_UP);
    await eventually(
      async () => ((await archivedCount()) === WARM_UP && (await drained()) ? true : undefined),
      60_000,
      "the warm-up archived",
    );
    const start = await usedMemory();

    await settle("load", OUTCOMES);
    const peak = await usedMemory();
    await eventually(
      async () => ((await archivedCount()) === WARM_UP + OUTCOMES && (await drained()) ? true : undefined),
      480_000,
      "every outcome archived",
    );
    // Then Redis's own housekeeping: its cron shrinks the keyspace's hash table (sized for the peak's keys),
    // but not while a snapshot's child process runs (the peak's writes start one). The end is where
    // used_memory settles once no child runs: unchanged over two seconds, within a minute.
    const childRunning = async (): Promise<boolean> =>
      /(rdb_bgsave|aof_rewrite)_in_progress:1/.test(await t.app.redis.info("persistence"));
    const settling: number[] = [];
    let end = await usedMemory();
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const now = await usedMemory();
      settling.push(now);
      const settled = now === end && !(await childRunning());
      end = now;
      if (settled) break;
    }
    console.log(`Redis used_memory while settling: ${settling.join(", ")}`);
    console.log(
      `Redis used_memory: ${start} bytes at the start, ${peak} after sending ${OUTCOMES} outcomes, ${end} once they moved (${((end / start - 1) * 100).toFixed(1)}%)`,
    );
    expect(end).toBeLessThan(start * 1.2);

    // Disaster: Redis loses everything; PostgreSQL still holds every charge (all made well over 10 s ago).
    await t.app.redis.flushall();
    const charges = await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM charges WHERE account_id = ${t.accountId}`;
    expect(Number(charges[0]!.n)).toBe(WARM_UP + OUTCOMES);
  }, 600_000);
});
