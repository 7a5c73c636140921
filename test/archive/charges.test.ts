// Charges reach PostgreSQL, the system of record, within seconds of their creation: every charge that
// GET /v1/charges lists is a row with the same fields, the shards' archive queues drain, a charge queued
// twice is stored once, and the rows stay when every Redis key of the deployment is gone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/archive-db/archive-db.js";
import type { ChargeRecord } from "../../src/outcomes/charge.js";
import { masters } from "../../src/redis/client.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { DEPLOYMENTS } from "../support/redis.js";

const OUTCOMES = 40;

type ListedCharge = ChargeRecord;

describe.each(DEPLOYMENTS)("charges archived to PostgreSQL (%s)", (deployment) => {
  let db: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestApp(deployment, { archiveUrl: db.url });
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/agents/closer", { name: "closer", condition: "COUNT(step)>=2 AND done" });
    await put("/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 250 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  }, 60_000);

  async function listed(): Promise<ListedCharge[]> {
    const all: ListedCharge[] = [];
    let cursor: string | null = null;
    do {
      const page = (await t.request("GET", `/v1/charges?limit=1000${cursor ? `&cursor=${cursor}` : ""}`)).body as {
        charges: ListedCharge[];
        next_cursor: string | null;
      };
      all.push(...page.charges);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return all;
  }

  async function rows(): Promise<ListedCharge[]> {
    const found = await db.sql<
      (Omit<ListedCharge, "confirmed_at" | "unit_amount" | "amount"> & {
        confirmed_at: Date;
        unit_amount: string;
        amount: string;
      })[]
    >`
      SELECT id, outcome_key, customer_key, agent_key, rate_card_key, currency, unit_amount, attribution, amount, confirmed_at
      FROM charges WHERE account_id = ${t.accountId}`;
    return found.map((row) => ({
      ...row,
      unit_amount: Number(row.unit_amount),
      amount: Number(row.amount),
      confirmed_at: row.confirmed_at.toISOString(),
    }));
  }

  it("stores every charge GET /v1/charges lists, with the same fields, and drains the queues", async () => {
    const keys = Array.from({ length: OUTCOMES }, (_, i) => `bill-${i}`);
    for (const action of ["step", "step", "done"]) {
      const events = keys.map((key, i) => ({
        key,
        customer_key: "acme",
        action,
        properties: action === "done" ? { attribution: 1 + (i % 3) } : {},
      }));
      const reply = await t.request("POST", "/v1/events/batch", { events });
      expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    }
    const charges = await eventually(
      async () => {
        const all = await listed();
        return all.length === OUTCOMES ? all : undefined;
      },
      30_000,
      "a charge for every outcome",
    );
    const byId = (a: ListedCharge, b: ListedCharge): number => (a.id < b.id ? -1 : 1);
    const archived = await eventually(
      async () => {
        const found = await rows();
        return found.length === OUTCOMES ? found : undefined;
      },
      10_000,
      "every charge in PostgreSQL within 10 s",
    );
    expect(archived.sort(byId)).toEqual(charges.sort(byId));

    const queued = async (): Promise<number> => {
      let total = 0;
      for (let shard = 0; shard < t.options.shards; shard++)
        total += await t.app.redis.xlen(t.app.keys.chargesToArchive(shard));
      return total;
    };
    await eventually(async () => ((await queued()) === 0 ? true : undefined), 10_000, "the archive queues drained");

    const month = charges[0]!.confirmed_at.slice(0, 7).replace("-", "m");
    const partitions = await db.sql<
      { name: string }[]
    >`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'charges'::regclass`;
    expect(partitions.map((p) => p.name)).toContain(`charges_y${month}`);
  }, 90_000);

  it("stores a charge queued twice once, and applies no migration twice", async () => {
    const [charge] = await listed();
    const shard = 0;
    await t.app.redis.xadd(
      t.app.keys.chargesToArchive(shard),
      "*",
      "d",
      JSON.stringify({ account_id: t.accountId, charge }),
    );
    // Whichever worker owns shard 0 archives it; in this single-process app that is this one.
    await eventually(
      async () => ((await t.app.redis.xlen(t.app.keys.chargesToArchive(shard))) === 0 ? true : undefined),
      10_000,
      "the requeued charge archived",
    );
    expect(await rows()).toHaveLength(OUTCOMES);
    expect(await migrate(db.sql)).toEqual([]);
  }, 30_000);

  it("keeps every charge when every Redis key of the deployment is gone", async () => {
    for (const node of masters(t.app.redis)) {
      let cursor = "0";
      do {
        const [next, found] = await node.scan(cursor, "MATCH", `${t.options.keyPrefix}*`, "COUNT", 1000);
        cursor = next;
        for (const key of found) await node.del(key);
      } while (cursor !== "0");
    }
    expect(await rows()).toHaveLength(OUTCOMES);
  }, 30_000);
});
