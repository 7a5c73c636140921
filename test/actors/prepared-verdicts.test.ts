// Verdicts prepared ahead of their deadline (src/actors/prepared-verdicts.ts): an outcome the look-ahead
// prepared that then receives an event before its deadline is forced from what it is at the deadline, event
// included, not from what was prepared; an outcome nothing changed takes its prepared snapshot.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/streams/shard.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";

interface Outcome {
  status: string;
  observations: Record<string, { count: number; last_value: unknown }>;
}

const unique = (label: string): string => `${label}:${randomBytes(4).toString("hex")}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DEPLOYMENTS)("verdicts prepared ahead of the deadline (%s)", (deployment) => {
  let t: TestApp;
  // The business clock: held still while the look-ahead prepares, then moved past the deadline.
  let now = Date.now();

  beforeAll(async () => {
    t = await startTestApp(deployment, {}, { clock: () => now });
  });
  afterAll(() => t.stop());

  it("forgets a prepared verdict when an event changes the outcome before the deadline", async () => {
    const task = unique("task");
    expect(
      (await t.request("PUT", `/v1/tasks/${encodeURIComponent(task)}`, { name: "n", condition: "level >= 5" })).status,
    ).toBe(201);
    // On two shards, so each shard's look-ahead finds its one outcome already open.
    const changed = unique("changed");
    let untouched = unique("untouched");
    while (shardOf(t.accountId, untouched, t.options.shards) === shardOf(t.accountId, changed, t.options.shards))
      untouched = unique("untouched");
    const deadline = now + 3000;
    for (const key of [changed, untouched]) {
      const opened = await t.request("POST", "/v1/outcomes", {
        key,
        task_key: task,
        settles_at: new Date(deadline).toISOString(),
      });
      expect(opened.status).toBe(201);
    }
    const preparedBefore = await metricValue(t.app.metricsPort, "verdict_prepared_verdicts_total");
    // Two monitor ticks: the deadline is within the look-ahead, so both verdicts (FAILED) are prepared.
    await sleep(2500);
    // Still false after it, so only the snapshot (the observation) tells the prepared verdict from the right one.
    const sent = await t.request("POST", "/v1/events", {
      outcome_key: changed,
      action: "level",
      properties: { value: 2 },
    });
    expect(sent.status).toBe(202);
    const get = async (key: string): Promise<Outcome> =>
      (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as Outcome;
    await eventually(async () => ((await get(changed)).observations.level?.count === 1 ? true : undefined));

    now = deadline + 500;
    const [after, control] = await eventually(async () => {
      const both = [await get(changed), await get(untouched)];
      return both.every((o) => o.status !== "OPEN") ? both : undefined;
    });
    expect(after!.status).toBe("FAILED");
    expect(after!.observations.level).toMatchObject({ count: 1, last_value: 2 });
    expect(control!.status).toBe("FAILED");
    expect(control!.observations).toEqual({});
    // The untouched outcome's verdict came from its prepared snapshot; the changed one's did not.
    expect((await metricValue(t.app.metricsPort, "verdict_prepared_verdicts_total")) - preparedBefore).toBe(1);
  }, 30_000);
});
