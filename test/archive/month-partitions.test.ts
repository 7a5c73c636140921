// The archivers keep planner statistics of the partitions they fill: autovacuum may be off (it is on this
// machine's PostgreSQL) and PGlite has none, and a lookup planned while a partition was empty stayed a
// sequential scan in the soak (60-80 ms a lookup at 120,000 archived outcomes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/archive-db/archive-db.js";
import { MonthPartitions } from "../../src/archive-db/month-partitions.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";

describe("month partitions' statistics", () => {
  let db: TestDatabase;
  const at = Date.UTC(2026, 10, 5);

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.sql);
  }, 30_000);

  afterAll(async () => {
    await db?.drop();
  }, 30_000);

  /** The partition's row count as the planner knows it: -1 until it is first analysed. */
  async function plannedRows(): Promise<number> {
    const [row] = await db.sql<
      { reltuples: number }[]
    >`SELECT reltuples FROM pg_class WHERE relname = 'charges_y2026m11'`;
    return Number(row!.reltuples);
  }

  async function insert(partitions: MonthPartitions, from: number, count: number): Promise<void> {
    await db.sql`
      INSERT INTO charges (id, account_id, outcome_key, customer_key, agent_key, rate_card_key, currency, unit_amount, attribution, amount, confirmed_at)
      SELECT 'charge-' || i, 'acct', 'outcome-' || i, 'acme', 'closer', 'card', 'EUR', 100, 1, 100, ${new Date(at).toISOString()}::timestamptz
      FROM generate_series(${from}::int, ${from + count - 1}::int) AS i`;
    await partitions.inserted(
      "charges",
      Array.from({ length: count }, () => at),
    );
  }

  it("analyses a partition once a process inserted 1,000 rows, then each time that doubles", async () => {
    const partitions = new MonthPartitions(db.sql);
    await partitions.ensure("charges", [at]);
    await insert(partitions, 0, 999);
    expect(await plannedRows()).toBe(-1);
    await insert(partitions, 999, 1);
    expect(await plannedRows()).toBe(1000);
    await insert(partitions, 1000, 999);
    expect(await plannedRows()).toBe(1000);
    await insert(partitions, 1999, 1);
    expect(await plannedRows()).toBe(2000);
  });
});
