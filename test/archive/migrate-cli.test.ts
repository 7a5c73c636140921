// `verdict migrate` as an operator runs it before starting workers: the first run applies the schema, the
// second applies nothing.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { envOf } from "../support/redis.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));

describe("verdict migrate", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  function migrate(): { status: number | null; out: unknown } {
    const env = {
      ...process.env,
      ...envOf("standalone"),
      VERDICT_TOKEN_SECRET: randomBytes(32).toString("base64url"),
      VERDICT_ARCHIVE_URL: db.url,
    };
    const result = spawnSync(process.execPath, [CLI, "migrate"], { env, encoding: "utf8" });
    return { status: result.status, out: result.stdout ? (JSON.parse(result.stdout) as unknown) : result.stderr };
  }

  it("applies the schema once", async () => {
    expect(migrate()).toEqual({
      status: 0,
      out: {
        applied: [
          "0001_charges",
          "0002_outcomes",
          "0003_charge_positions",
          "0004_dead_letters",
          "0005_insight_rollups",
        ],
      },
    });
    expect(migrate()).toEqual({ status: 0, out: { applied: [] } });
    const tables = await db.sql<
      { name: string }[]
    >`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`;
    expect(tables.map((t) => t.name)).toEqual([
      "charges",
      "dead_letters",
      "insight_rollups",
      "outcome_events",
      "outcomes",
      "schema_migrations",
    ]);
  });
});
