// The shards' filters of archived outcomes: every outcome the archiver deletes from Redis has its bits set
// (in the script that deletes it), new keys mostly do not, and a filter that is lost or older than its
// outcomes is never trusted: an event to an archived outcome is still refused while the filters are rebuilt
// from the archive, and after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FILTER_HASHES,
  FILTER_LAYOUT_VERSION,
  FILTER_BITS,
  filterOffsets,
} from "../../src/archive-read/archived-filter.js";
import { outcomeRef } from "../../src/outcomes/outcome-ref.js";
import { shardOf } from "../../src/streams/shard.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { DEPLOYMENTS } from "../support/redis.js";

const OUTCOMES = 40;

describe.each(DEPLOYMENTS)("archived-outcome filters (%s)", (deployment) => {
  let db: TestDatabase;
  let t: TestApp;
  const keys = Array.from({ length: OUTCOMES }, (_, i) => `filtered-${i}`);

  /** The layout version of the shard's filter and whether each ref's bits are all set. */
  async function filterOf(shard: number, refs: readonly string[]): Promise<{ version: number; held: boolean[] }> {
    const args: (string | number)[] = ["GET", "u8", FILTER_BITS];
    for (const ref of refs) for (const offset of filterOffsets(ref)) args.push("GET", "u1", offset);
    const bits = (await t.app.redis.call("BITFIELD", t.app.keys.archivedFilter(shard), ...args)) as number[];
    return {
      version: bits[0]!,
      held: refs.map((_, i) =>
        bits.slice(1 + i * FILTER_HASHES, 1 + (i + 1) * FILTER_HASHES).every((bit) => bit === 1),
      ),
    };
  }

  const shardOfKey = (key: string): number => shardOf(t.accountId, key, t.options.shards);

  /** Whether every shard's filter is ready and holds each archived key. */
  async function holdsArchived(): Promise<boolean> {
    for (const key of keys) {
      const { version, held } = await filterOf(shardOfKey(key), [outcomeRef(t.accountId, key)]);
      if (version !== FILTER_LAYOUT_VERSION || !held[0]) return false;
    }
    return true;
  }

  /** A late event to an archived outcome is dead-lettered and the outcome stays CONFIRMED. */
  async function lateEventRefused(key: string, idempotencyKey: string): Promise<void> {
    const reply = await t.request("POST", "/v1/events/batch", {
      events: [{ key, customer_key: "acme", action: "step", idempotency_key: idempotencyKey }],
    });
    expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    await eventually(
      async () => {
        const { dead_letters: letters } = (await t.request("GET", "/v1/dlq?limit=1000")).body as {
          dead_letters: { code: string; event: { idempotency_key?: string } }[];
        };
        return letters.some((l) => l.code === "OUTCOME_NOT_OPEN" && l.event.idempotency_key === idempotencyKey)
          ? true
          : undefined;
      },
      15_000,
      `the late event ${idempotencyKey} dead-lettered`,
    );
    expect(((await t.request("GET", `/v1/outcomes/${key}`)).body as { status: string }).status).toBe("CONFIRMED");
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestApp(deployment, { archiveUrl: db.url, hotRetentionMs: 1000 });
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/agents/closer", { name: "closer", condition: "done" });
    await put("/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    // The filters are ready (built from the empty archive at start) before anything is archived, so every
    // bit the first test finds set was set by the deletes themselves, not by a rebuild.
    await eventually(
      async () => {
        for (let shard = 0; shard < t.options.shards; shard++)
          if ((await filterOf(shard, [])).version !== FILTER_LAYOUT_VERSION) return undefined;
        return true;
      },
      30_000,
      "the filters ready",
    );
    const reply = await t.request("POST", "/v1/events/batch", {
      events: keys.map((key) => ({ key, customer_key: "acme", action: "done" })),
    });
    expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    await eventually(
      async () => {
        const rows = await db.sql<
          { n: string }[]
        >`SELECT count(*) AS n FROM outcomes WHERE account_id = ${t.accountId}`;
        const inRedis = await Promise.all(
          keys.map((key) => t.app.redis.exists(t.app.keys.outcome(shardOfKey(key), t.accountId, key))),
        );
        return Number(rows[0]!.n) === OUTCOMES && inRedis.every((n) => n === 0) ? true : undefined;
      },
      60_000,
      "every outcome archived and gone from Redis",
    );
  }, 90_000);

  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  }, 60_000);

  it("holds every outcome the archiver deleted, and few keys it never saw", async () => {
    expect(await holdsArchived()).toBe(true);
    const unseen = Array.from({ length: 400 }, (_, i) => `never-sent-${i}`);
    let falsePositives = 0;
    for (const key of unseen)
      if ((await filterOf(shardOfKey(key), [outcomeRef(t.accountId, key)])).held[0]) falsePositives++;
    // 40 outcomes in filters of 2^21 bits: a false positive is a one-in-10^20 event.
    expect(falsePositives).toBe(0);
    await lateEventRefused(keys[0]!, "late-with-filter");
  }, 60_000);

  it("trusts no lost filter: a late event is refused while the filters are rebuilt from the archive", async () => {
    for (let shard = 0; shard < t.options.shards; shard++) await t.app.redis.del(t.app.keys.archivedFilter(shard));
    // Without filters every unknown outcome is looked up in the archive, as before filters existed.
    await lateEventRefused(keys[1]!, "late-without-filter");
    await eventually(
      async () => ((await holdsArchived()) ? true : undefined),
      30_000,
      "the filters rebuilt from the archive",
    );
    await lateEventRefused(keys[2]!, "late-after-rebuild");
  }, 90_000);
});
