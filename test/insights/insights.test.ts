// GET /v1/insights against a seeded fleet over a simulated week (both variants, every way to a verdict,
// failures over three clauses, charges in two currencies): every bucket equals the count worked out from
// the scenarios, by hour, by day in UTC and in a zone east of it, and by week.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { bucketed, DAY, expected, expectedQuantile, fleet, HOUR, play, putContracts, type ExpectedGroup, type Seeded } from "./fleet.js";

interface Answer {
  bucket: string;
  from: string;
  to: string;
  groups: Array<{
    key: string;
    series: Array<{ start: string; opened: number; confirmed: number; failed: number; forced: number; dead_letters: number; charges: Record<string, number> }>;
    totals: {
      opened: number;
      confirmed: number;
      failed: number;
      decided: number;
      confirmation_rate: number | null;
      verdicts_by_cause: Record<string, number>;
      charges: Record<string, { count: number; amount: number }>;
      time_to_verdict_ms: { p50: number | null; p90: number | null };
    };
    failing_clauses: Array<{ clause: string; text: string; count: number }>;
  }>;
}

/** A Monday 00:00 UTC at least two weeks back: the simulated week is over, whole, in the past. */
function mondayWeeksAgo(): number {
  const start = Math.floor((Date.now() - 14 * DAY) / DAY) * DAY;
  const weekday = (new Date(start).getUTCDay() + 6) % 7;
  return start - weekday * DAY;
}

/** Checks one dimension's answer against the expected rollups, bucket by bucket. */
export function checkAnswer(answer: Answer, groups: Map<string, ExpectedGroup>, starts: number[], end: number): void {
  expect(answer.groups.map((g) => g.key).sort()).toEqual([...groups.keys()].sort());
  for (const group of answer.groups) {
    const want = groups.get(group.key)!;
    expect(group.series.map((p) => Date.parse(p.start))).toEqual(starts);
    expect(group.series.map(({ start: _start, ...point }) => point)).toEqual(bucketed(want, starts, end));
    const sum = (name: "opened" | "confirmed" | "failed") => [...want.hours.values()].reduce((n, p) => n + p[name], 0);
    const decided = sum("confirmed") + sum("failed");
    expect(group.totals).toMatchObject({
      opened: sum("opened"),
      confirmed: sum("confirmed"),
      failed: sum("failed"),
      decided,
      confirmation_rate: decided >= 3 ? sum("confirmed") / decided : null,
      verdicts_by_cause: want.ways,
      time_to_verdict_ms: { p50: expectedQuantile(want.ttv, 0.5), p90: expectedQuantile(want.ttv, 0.9) },
    });
    for (const [currency, count] of Object.entries(want.chargeCounts)) expect(group.totals.charges[currency]?.count).toBe(count);
    expect(Object.fromEntries(group.failing_clauses.map((c) => [c.text, c.count]))).toEqual(Object.fromEntries(want.clauses));
    const counts = group.failing_clauses.map((c) => c.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    for (const clause of group.failing_clauses) expect(clause.clause).toMatch(/^[0-9a-f]{8}\.\d+$/);
  }
}

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
    await eventually(async () => {
      const open = (await t.request("GET", "/v1/outcomes?status=OPEN&limit=1")).body as { outcomes: unknown[] };
      return open.outcomes.length === 0 ? true : undefined;
    }, 20_000, "every outcome decided");
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
      expect(answer).toMatchObject({ bucket: "hour", from: new Date(weekStart).toISOString(), to: new Date(end).toISOString() });
      checkAnswer(answer, want[dimension], starts, end);
    }
  });

  it("day buckets in UTC and in Asia/Tokyo (midnight 15:00 UTC), and weeks from Monday", async () => {
    const want = expected(seeded);
    const utcDays = Array.from({ length: 8 }, (_, i) => weekStart + i * DAY);
    checkAnswer(await get(`group_by=task&bucket=day&${range}`), want.task, utcDays, weekStart + 8 * DAY);
    // Tokyo is UTC+9 all year: its days start at 15:00 UTC, the first the evening before the week.
    const tokyoDays = Array.from({ length: 8 }, (_, i) => weekStart - 9 * HOUR + i * DAY);
    checkAnswer(await get(`group_by=agent&bucket=day&tz=Asia/Tokyo&${range}`), want.agent, tokyoDays, weekStart - 9 * HOUR + 8 * DAY);
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
    expect(none.groups[0]!.series.every((p) => p.opened === 0 && p.confirmed === 0 && Object.keys(p.charges).length === 0)).toBe(true);
    expect(none.groups[0]!.totals.confirmation_rate).toBeNull();
  });

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
