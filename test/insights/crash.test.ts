// A kill -9 of a worker mid-run changes no count: three worker processes apply a fleet's events while one
// of them is killed with SIGKILL every two seconds and replaced; the rollups then count every outcome,
// verdict, clause, charge and dead letter exactly once (a batch replayed after a crash adds nothing twice).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";
import type { Answer } from "./fleet.js";

const PER_KIND = 300;
const LATE = 100;
const BATCH = 500;

describe.each(DEPLOYMENTS)("insight rollups through worker kill -9 (%s)", (deployment) => {
  let t: TestApp;
  const workers: VerdictProcess[] = [];

  beforeAll(async () => {
    // This process only takes HTTP; the three workers are separate processes.
    t = await startTestApp(deployment, { role: "ingress", shards: 16, leaseTtlMs: 1000 });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await t.stop();
  });

  it("counts every outcome, verdict, clause, charge and dead letter once", async () => {
    const started = Date.now();
    const env = envFor(t.options);
    for (let i = 0; i < 3; i++) workers.push(await spawnVerdict("worker", env));
    const put = async (path: string, body: unknown) =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/tasks/ok", { name: "ok", condition: "done" });
    await put("/v1/tasks/bad", { name: "bad", condition: "NOT bad" });
    await put("/v1/agents/closer", { name: "closer", condition: "done" });
    await put("/v1/rate-cards/card", { currency: "USD", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    const ok = Array.from({ length: PER_KIND }, (_, i) => `ok:${i}`);
    const bad = Array.from({ length: PER_KIND }, (_, i) => `bad:${i}`);
    const billed = Array.from({ length: PER_KIND }, (_, i) => `bill:${i}`);
    for (const [keys, task] of [
      [ok, "ok"],
      [bad, "bad"],
    ] as const) {
      for (let i = 0; i < keys.length; i += 100) {
        await Promise.all(
          keys
            .slice(i, i + 100)
            .map(async (key) =>
              expect((await t.request("POST", "/v1/outcomes", { key, task_key: task })).status).toBe(201),
            ),
        );
      }
    }

    let killing = true;
    let kills = 0;
    const killer = (async () => {
      while (killing) {
        await new Promise((r) => setTimeout(r, 2000));
        if (!killing) break;
        await workers.shift()?.kill("SIGKILL");
        kills++;
        workers.push(await spawnVerdict("worker", env));
      }
    })();
    const rounds: Array<Array<Record<string, unknown>>> = [
      [
        ...[...ok, ...bad].map((key) => ({ outcome_key: key, action: "step" })),
        ...billed.map((key) => ({ key, customer_key: "acme", agent_key: "closer", action: "step" })),
      ],
      [
        ...ok.map((key) => ({ outcome_key: key, action: "done" })),
        ...bad.map((key) => ({ outcome_key: key, action: "bad" })),
        ...billed.map((key) => ({ key, customer_key: "acme", action: "done" })),
      ],
      // After their verdicts: each one is a dead letter (OUTCOME_NOT_OPEN) of task ok.
      ok.slice(0, LATE).map((key) => ({ outcome_key: key, action: "step" })),
    ];
    for (const events of rounds) {
      for (let i = 0; i < events.length; i += BATCH) {
        const reply = await t.request("POST", "/v1/events/batch", { events: events.slice(i, i + BATCH) });
        expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
      }
      await new Promise((r) => setTimeout(r, 2500));
    }
    while (kills < 2) await new Promise((r) => setTimeout(r, 100));
    killing = false;
    await killer;

    const query = `bucket=day&from=${new Date(started - 2 * 3600_000).toISOString()}&to=${new Date(Date.now() + 2 * 3600_000).toISOString()}`;
    const totals = async (dimension: string): Promise<Answer["groups"]> =>
      ((await t.request("GET", `/v1/insights?group_by=${dimension}&${query}`)).body as Answer).groups;
    const deadLetters = (group: Answer["groups"][number] | undefined) =>
      group?.series.reduce((n, p) => n + p.dead_letters, 0);
    const tasks = await eventually(
      async () => {
        const groups = await totals("task");
        const done = groups.find((g) => g.key === "ok");
        return done?.totals.confirmed === PER_KIND &&
          groups.find((g) => g.key === "bad")?.totals.failed === PER_KIND &&
          deadLetters(done) === LATE
          ? groups
          : undefined;
      },
      120_000,
      "every verdict and dead letter counted",
    );
    // Settled: nothing more arrives, and nothing was counted twice.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await totals("task")).toEqual(tasks);
    const byKey = new Map(tasks.map((g) => [g.key, g]));
    expect(byKey.get("ok")?.totals).toMatchObject({
      opened: PER_KIND,
      confirmed: PER_KIND,
      failed: 0,
      verdicts_by_cause: { locked: PER_KIND, idle: 0, deadline: 0 },
    });
    expect(byKey.get("bad")?.totals).toMatchObject({
      opened: PER_KIND,
      confirmed: 0,
      failed: PER_KIND,
      verdicts_by_cause: { locked: PER_KIND, idle: 0, deadline: 0 },
    });
    expect(byKey.get("bad")?.failing_clauses.map(({ text, count }) => ({ text, count }))).toEqual([
      { text: "NOT bad", count: PER_KIND },
    ]);
    expect(deadLetters(byKey.get("ok"))).toBe(LATE);
    for (const [dimension, key] of [
      ["agent", "closer"],
      ["customer", "acme"],
    ] as const) {
      const [group] = await eventually(
        async () => {
          const groups = await totals(dimension);
          return groups[0]?.totals.confirmed === PER_KIND ? groups : undefined;
        },
        60_000,
        `${dimension} counted`,
      );
      expect(group).toMatchObject({
        key,
        totals: {
          opened: PER_KIND,
          confirmed: PER_KIND,
          failed: 0,
          charges: { USD: { count: PER_KIND, amount: PER_KIND * 100 } },
        },
      });
    }
    expect(kills).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
