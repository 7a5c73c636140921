// Rollups move to PostgreSQL with the archive and are read from both: the seeded week moves out of Redis
// while GET /v1/insights is asked again and again, and every answer, at every moment of the move, equals
// the scenarios' count, and the outcomes list by failing clause (from PostgreSQL) agrees; then a second
// fleet in recent hours stays in Redis, and a range over both adds up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import {
  checkAnswer,
  checkFailedClauseLists,
  DAY,
  HOUR,
  MIN,
  expected,
  fleet,
  mondayWeeksAgo,
  play,
  putContracts,
  type Answer,
  type Seeded,
} from "./fleet.js";

describe.each(DEPLOYMENTS)("insight rollups through the archive (%s)", (deployment) => {
  const weekStart = mondayWeeksAgo();
  let now = weekStart;
  let t: TestApp;
  let db: TestDatabase;
  let week: Seeded[];

  beforeAll(async () => {
    db = await createTestDatabase();
    // A short retention: the week's hours are due to move as soon as they are written.
    t = await startTestApp(deployment, { archiveUrl: db.url, hotRetentionMs: 2000 }, { clock: () => now });
    await putContracts(t);
    week = fleet(weekStart, 44, "w");
    await play(t, week, (ms) => (now = ms));
    now = weekStart + 8 * DAY;
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  });

  const get = async (query: string): Promise<Answer> => {
    const reply = await t.request("GET", `/v1/insights?${query}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as Answer;
  };
  const hotMembers = async (): Promise<number> => {
    let members = 0;
    for (let shard = 0; shard < t.options.shards; shard++) {
      members += await t.app.redis.zcard(t.app.keys.insightRollupDays(shard));
      members += await t.app.redis.zcard(t.app.keys.insightRollupMoves(shard));
    }
    return members;
  };

  it("counts every rollup once while it moves, and Redis keeps none of the week once moved", async () => {
    const want = expected(week);
    const range = `from=${new Date(weekStart).toISOString()}&to=${new Date(weekStart + 8 * DAY).toISOString()}`;
    const total = (dimension: "task" | "agent" | "customer") =>
      [...want[dimension].values()].reduce(
        (n, g) => n + [...g.hours.values()].reduce((m, p) => m + p.opened + p.confirmed + p.failed, 0),
        0,
      );
    await eventually(
      async () =>
        ((await t.request("GET", "/v1/outcomes?status=OPEN&limit=1")).body as { outcomes: unknown[] }).outcomes
          .length === 0
          ? true
          : undefined,
      20_000,
      "every outcome decided",
    );
    let reads = 0;
    await eventually(
      async () => {
        // Every answer while the move goes on: the same totals, never a rollup twice or not at all.
        for (const dimension of ["task", "agent", "customer"] as const) {
          const answer = await get(`group_by=${dimension}&bucket=week&${range}`);
          expect(answer.groups.reduce((n, g) => n + g.totals.opened + g.totals.confirmed + g.totals.failed, 0)).toBe(
            total(dimension),
          );
          reads++;
        }
        const [row] = await db.sql<{ count: string }[]>`SELECT count(*) FROM insight_rollups`;
        return Number(row?.count) > 0 && (await hotMembers()) === 0 ? true : undefined;
      },
      60_000,
      "the week's rollups moved to PostgreSQL and gone from Redis",
    );
    expect(reads).toBeGreaterThan(3);
    const starts = Array.from({ length: 8 }, (_, i) => weekStart + i * DAY);
    for (const dimension of ["task", "agent", "customer"] as const) {
      checkAnswer(await get(`group_by=${dimension}&bucket=day&${range}`), want[dimension], starts, weekStart + 8 * DAY);
    }
  }, 90_000);

  it("lists archived outcomes by failing clause as the moved rollups count them", async () => {
    const failed = week.filter((s) => s.scenario.status === "FAILED").length;
    const archivedFailed = async (): Promise<number> =>
      Number((await db.sql<{ count: string }[]>`SELECT count(*) FROM outcomes WHERE status = 'FAILED'`)[0]?.count);
    await eventually(
      async () => ((await archivedFailed()) === failed ? true : undefined),
      30_000,
      "the week's failed outcomes archived",
    );
    const range = `bucket=week&from=${new Date(weekStart).toISOString()}&to=${new Date(weekStart + 8 * DAY).toISOString()}`;
    await expect(checkFailedClauseLists(t, "task", await get(`group_by=task&${range}`), week)).resolves.toBe(5);
    await expect(checkFailedClauseLists(t, "agent", await get(`group_by=agent&${range}`), week)).resolves.toBe(1);
  }, 60_000);

  it("adds recent hours in Redis to archived ones in PostgreSQL", async () => {
    // From the next hour on (business time may run ahead of the wall): hours not due to move for a while.
    const recentStart = Math.floor(Date.now() / HOUR) * HOUR + HOUR;
    const recent = fleet(recentStart, 11, "r").map((seeded, i) => ({ ...seeded, createdAt: recentStart + i * MIN }));
    await play(t, recent, (ms) => (now = ms));
    now = recentStart + 5 * HOUR;
    await eventually(
      async () =>
        ((await t.request("GET", "/v1/outcomes?status=OPEN&limit=1")).body as { outcomes: unknown[] }).outcomes
          .length === 0
          ? true
          : undefined,
      20_000,
      "every outcome decided",
    );
    expect(await hotMembers()).toBeGreaterThan(0);
    const want = expected([...week, ...recent]);
    const from = weekStart;
    const end = Math.ceil((recentStart + 5 * HOUR) / DAY) * DAY;
    const starts = Array.from({ length: (end - from) / DAY }, (_, i) => from + i * DAY);
    for (const dimension of ["task", "agent", "customer"] as const) {
      checkAnswer(
        await get(
          `group_by=${dimension}&bucket=day&from=${new Date(from).toISOString()}&to=${new Date(end).toISOString()}`,
        ),
        want[dimension],
        starts,
        end,
      );
    }
  }, 90_000);
});
