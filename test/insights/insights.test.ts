// GET /v1/insights against a seeded fleet over a simulated week (both variants, every way to a verdict,
// failures over three clauses, charges in two currencies): every bucket equals the count worked out from
// the scenarios, by hour, by day in UTC and in a zone east of it, and by week; the outcomes list by failing clause agrees with the counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import {
  checkAnswer,
  checkFailedClauseLists,
  DAY,
  expected,
  fleet,
  HOUR,
  mondayWeeksAgo,
  play,
  putContracts,
  type Answer,
  type Seeded,
} from "./fleet.js";

describe.each(DEPLOYMENTS)("insights of a seeded week (%s)", (deployment) => {
  const weekStart = mondayWeeksAgo();
  let now = weekStart;
  let t: TestApp;
  let seeded: Seeded[];

  beforeAll(async () => {
    t = await startTestApp(deployment, {}, { clock: () => now });
    await putContracts(t);
    seeded = fleet(weekStart, 60, "o");
    await play(t, seeded, (ms) => (now = ms));
    // Every deadline passes; the monitor forces what is still open.
    now = weekStart + 8 * DAY;
    await eventually(
      async () => {
        const open = (await t.request("GET", "/v1/outcomes?status=OPEN&limit=1")).body as { outcomes: unknown[] };
        return open.outcomes.length === 0 ? true : undefined;
      },
      20_000,
      "every outcome decided",
    );
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
  });

  const get = async (query: string): Promise<Answer> => {
    const reply = await t.request("GET", `/v1/insights?${query}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as Answer;
  };
  const range = `from=${new Date(weekStart).toISOString()}&to=${new Date(weekStart + 7 * DAY + 6 * HOUR).toISOString()}`;

  it("hour buckets: every hour of the week equals the scenarios' count, per task, agent and customer", async () => {
    const want = expected(seeded);
    const starts = Array.from({ length: 7 * 24 + 6 }, (_, i) => weekStart + i * HOUR);
    const end = weekStart + 7 * DAY + 6 * HOUR;
    for (const dimension of ["task", "agent", "customer"] as const) {
      const answer = await get(`group_by=${dimension}&bucket=hour&${range}`);
      expect(answer).toMatchObject({
        bucket: "hour",
        from: new Date(weekStart).toISOString(),
        to: new Date(end).toISOString(),
      });
      checkAnswer(answer, want[dimension], starts, end);
    }
  });

  it("day buckets in UTC and in Asia/Tokyo (midnight 15:00 UTC), and weeks from Monday", async () => {
    const want = expected(seeded);
    const utcDays = Array.from({ length: 8 }, (_, i) => weekStart + i * DAY);
    checkAnswer(await get(`group_by=task&bucket=day&${range}`), want.task, utcDays, weekStart + 8 * DAY);
    // Tokyo is UTC+9 all year: its days start at 15:00 UTC, the first the evening before the week.
    const tokyoDays = Array.from({ length: 8 }, (_, i) => weekStart - 9 * HOUR + i * DAY);
    checkAnswer(
      await get(`group_by=agent&bucket=day&tz=Asia/Tokyo&${range}`),
      want.agent,
      tokyoDays,
      weekStart - 9 * HOUR + 8 * DAY,
    );
    const weeks = [weekStart, weekStart + 7 * DAY];
    checkAnswer(await get(`group_by=customer&bucket=week&${range}`), want.customer, weeks, weekStart + 14 * DAY);
  });

  it("a key filter answers that group alone, with zeros for a key without outcomes", async () => {
    const want = expected(seeded);
    const starts = Array.from({ length: 8 }, (_, i) => weekStart + i * DAY);
    const one = await get(`group_by=task&key=triage&bucket=day&${range}`);
    checkAnswer(one, new Map([["triage", want.task.get("triage")!]]), starts, weekStart + 8 * DAY);
    const none = await get(`group_by=task&key=nobody&bucket=day&${range}`);
    expect(none.groups).toHaveLength(1);
    expect(
      none.groups[0]!.series.every((p) => p.opened === 0 && p.confirmed === 0 && Object.keys(p.charges).length === 0),
    ).toBe(true);
    expect(none.groups[0]!.totals.confirmation_rate).toBeNull();
  });

  it("lists with failed_clause exactly the outcomes each failing clause counts, with the other filters too", async () => {
    const tasks = await get(`group_by=task&bucket=week&${range}`);
    // triage: b, NOT x, a; quick: done; quiet: ping; closer: done.
    await expect(checkFailedClauseLists(t, "task", tasks, seeded)).resolves.toBe(5);
    await expect(
      checkFailedClauseLists(t, "agent", await get(`group_by=agent&bucket=week&${range}`), seeded),
    ).resolves.toBe(1);
    // Task quick and agent closer share the condition `done`, so its clause: without a group it lists both.
    const done = tasks.groups.find((g) => g.key === "quick")!.failing_clauses[0]!;
    const want = seeded.filter((s) => s.scenario.falseClauses.includes("done")).map((s) => s.key);
    const all = await t.request("GET", `/v1/outcomes?failed_clause=${done.clause}&limit=1000`);
    expect((all.body as { outcomes: Array<{ key: string }> }).outcomes.map((o) => o.key).sort()).toEqual(want.sort());
    const triage = tasks.groups.find((g) => g.key === "triage")!.failing_clauses.find((c) => c.text === "b")!;
    const keys = async (query: string): Promise<string[]> =>
      (
        (await t.request("GET", `/v1/outcomes?failed_clause=${triage.clause}&${query}`)).body as {
          outcomes: Array<{ key: string }>;
        }
      ).outcomes.map((o) => o.key);
    await expect(keys("task_key=triage&status=FAILED&limit=1000")).resolves.toHaveLength(triage.count);
    await expect(keys("task_key=quick")).resolves.toEqual([]);
    await expect(keys("status=CONFIRMED")).resolves.toEqual([]);
  });

  it.each(["done", "0A1B2C3D.1", "0a1b2c3d.0", "0a1b2c3d", "0a1b2c3d.1.2"])(
    "failed_clause=%s is a 400 VALIDATION_ERROR",
    async (value) => {
      const reply = await t.request("GET", `/v1/outcomes?failed_clause=${encodeURIComponent(value)}`);
      expect(reply.status).toBe(400);
      const body = reply.body as { error: { code: string; details: Array<{ path: string }> } };
      expect(body.error.code).toBe("VALIDATION_ERROR");
      expect(body.error.details.map((d) => d.path)).toEqual(["failed_clause"]);
    },
  );

  it.each([
    ["group_by=team", "group_by"],
    ["group_by=task&bucket=month", "bucket"],
    ["group_by=task&tz=Mars/Olympus", "tz"],
    ["group_by=task&from=yesterday", "from"],
    ["group_by=task&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
    ["group_by=task&bucket=hour&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z", "to"],
    ["group_by=task&limit=0", "limit"],
    ["group_by=task&colour=red", "colour"],
    ["bucket=day", "group_by"],
  ])("%s is a 400 VALIDATION_ERROR at %s", async (query, path) => {
    const reply = await t.request("GET", `/v1/insights?${query}`);
    expect(reply.status).toBe(400);
    const body = reply.body as { error: { code: string; details: Array<{ path: string }> } };
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.details.map((d) => d.path)).toContain(path);
  });
});
