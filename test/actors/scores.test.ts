// Model scores end to end through HTTP, on a standalone Redis and on a cluster: a cohort is trained by its
// outcomes, then outliers are scored against it; warm-ups give null; a replayed dead letter and a
// redelivered stream entry teach no model. The business clock is frozen (moved by hand for settlement), so
// the gap between events is 0 and the scores read only what the test sends.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSUMER_GROUP } from "../../src/actors/consumer-group.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";

interface Scores {
  trajectory: number | null;
  anomaly: number | null;
  novelty: number | null;
}

interface Outcome {
  key: string;
  status: string;
  observations: Record<string, { count: number }>;
  scores: Scores;
}

interface Step {
  action: string;
  value?: number;
  settlesAt?: number;
}

const REFRESH_MS = 100;
const unique = (label: string): string => `${label}-${randomBytes(4).toString("hex")}`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The cohort's usual run: a, b, c with values near 10. */
const usual = (i: number): Step[] => [
  { action: "a", value: 10 + ((i % 5) - 2) / 10 },
  { action: "b", value: 10 + ((i * 3) % 7) / 10 - 0.3 },
  { action: "c", value: 10 },
];

describe.each(DEPLOYMENTS)("model scores (%s)", (deployment) => {
  let t: TestApp;
  let now = Date.parse("2026-06-01T00:00:00Z");

  beforeAll(async () => {
    t = await startTestApp(deployment, { scoreRefreshMs: REFRESH_MS }, { clock: () => now });
  });
  afterAll(async () => {
    await t.stop();
  });

  async function task(condition: string): Promise<string> {
    const key = unique("task");
    expect((await t.request("PUT", `/v1/tasks/${key}`, { name: "Scored", condition })).status).toBe(201);
    return key;
  }

  /** Opens an outcome of the task and sends its steps in one batch (processed in order). */
  async function run(taskKey: string, steps: readonly Step[]): Promise<string> {
    const key = unique("o");
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    const events = steps.map(({ action, value, settlesAt }) => {
      const properties: Record<string, unknown> = {};
      if (value !== undefined) properties.value = value;
      if (settlesAt !== undefined) properties.settles_at = new Date(settlesAt).toISOString();
      return { outcome_key: key, action, properties };
    });
    const sent = await t.request("POST", "/v1/events/batch", { events });
    expect(sent.status).toBe(202);
    expect((sent.body as { accepted: number }).accepted).toBe(steps.length);
    return key;
  }

  async function get(key: string): Promise<Outcome> {
    return (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as Outcome;
  }

  /** Waits until the outcome shows all its events (and a verdict when `status` is given). */
  async function settled(key: string, events: number, status?: string): Promise<Outcome> {
    return eventually(
      async () => {
        const outcome = await get(key);
        const seen = Object.values(outcome.observations ?? {}).reduce((sum, o) => sum + o.count, 0);
        return seen === events && (status === undefined || outcome.status === status) ? outcome : undefined;
      },
      20_000,
      `${key} with ${events} events${status ? ` and ${status}` : ""}`,
    );
  }

  /** The shards' partial models of a task's cohort, as Redis holds them. */
  async function partials(taskKey: string): Promise<Record<string, string>[]> {
    const { redis, keys } = t.app;
    return Promise.all(
      Array.from({ length: t.options.shards }, (_, shard) =>
        redis.hgetall(keys.scoreModel(shard, t.accountId, "task", taskKey)),
      ),
    );
  }

  /** Waits until the cohort's model counts `outcomes` started and `verdicts` settled, then for workers to re-read it. */
  async function trained(taskKey: string, outcomes: number, verdicts: number): Promise<void> {
    await eventually(
      async () => {
        let started = 0;
        let done = 0;
        for (const partial of await partials(taskKey)) {
          started += Number(partial.n ?? 0);
          done += Number(partial.s ?? 0);
        }
        return started === outcomes && done === verdicts ? true : undefined;
      },
      20_000,
      `${outcomes} outcomes and ${verdicts} verdicts in the model`,
    );
    await new Promise((resolve) => setTimeout(resolve, 5 * REFRESH_MS));
  }

  const inRange = (scores: Scores): void => {
    for (const score of Object.values(scores) as (number | null)[]) {
      if (score === null) continue;
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  };

  it("scores an outlying value as anomalous and an unseen sequence as novel, after warm-ups that give null", async () => {
    const taskKey = await task("c");
    // The first outcome is scored against an empty model: nothing but its verdict.
    const first = await settled(await run(taskKey, usual(0)), 3, "CONFIRMED");
    expect(first.scores).toEqual({ trajectory: 1, anomaly: null, novelty: null });
    const training = await Promise.all(Array.from({ length: 59 }, (_, i) => run(taskKey, usual(i + 1))));
    for (const key of training) inRange((await settled(key, 3, "CONFIRMED")).scores);
    await trained(taskKey, 60, 60);

    const normals = await Promise.all(Array.from({ length: 20 }, (_, i) => run(taskKey, usual(i + 60))));
    const outlier = await run(taskKey, [
      { action: "a", value: 10 },
      { action: "b", value: 1000 },
      { action: "c", value: 10 },
    ]);
    const novel = await run(taskKey, [{ action: "x" }, { action: "y" }]);
    const scored = await Promise.all(normals.map((key) => settled(key, 3, "CONFIRMED")));
    for (const { scores } of scored) {
      inRange(scores);
      expect(scores.novelty).not.toBeNull();
      expect(scores.novelty!).toBeLessThanOrEqual(0.3);
    }
    expect(median(scored.map(({ scores }) => scores.anomaly!))).toBeLessThan(0.9);
    expect((await settled(outlier, 3, "CONFIRMED")).scores.anomaly!).toBeGreaterThanOrEqual(0.99);
    const odd = await settled(novel, 2, "OPEN");
    expect(odd.scores.novelty!).toBeGreaterThanOrEqual(0.9);
    // The cohort has 60 settled outcomes by now: an open outcome's trajectory is read.
    expect(odd.scores.trajectory).not.toBeNull();

    // "The most anomalous" is one call; a sorted listing pages through every scored outcome once, in order.
    const top = await t.request("GET", `/v1/outcomes?task_key=${taskKey}&sort=anomaly&order=desc&limit=1`);
    expect((top.body as { outcomes: Outcome[] }).outcomes.map((o) => o.key)).toEqual([outlier]);
    const listed: Outcome[] = [];
    let cursor: string | null = null;
    do {
      const reply = await t.request(
        "GET",
        `/v1/outcomes?task_key=${taskKey}&sort=novelty&order=asc&limit=7${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(reply.status).toBe(200);
      const page = reply.body as { outcomes: Outcome[]; next_cursor: string | null };
      listed.push(...page.outcomes);
      cursor = page.next_cursor;
    } while (cursor !== null);
    const novelties = listed.map((o) => o.scores.novelty!);
    expect(novelties).toEqual([...novelties].sort((a, b) => a - b));
    expect(new Set(listed.map((o) => o.key)).size).toBe(listed.length);
    // Scored: the 20 normals, the outlier, the novel one and those of the training scored after its warm-up.
    expect(listed.length).toBeGreaterThanOrEqual(22);
    expect(listed[listed.length - 1]!.key).toBe(novel);
    expect((await t.request("GET", `/v1/outcomes?sort=surprise`)).status).toBe(400);
    expect((await t.request("GET", `/v1/outcomes?sort=anomaly&order=up`)).status).toBe(400);
  });

  it("gives an open outcome further along the path that confirms the higher trajectory", async () => {
    const taskKey = await task("a AND b AND c");
    const start = now;
    // 40 that do a, b, c and confirm; 40 that stop after a and fail at a deadline one second away.
    const far = start + 3_600_000;
    const confirmed = await Promise.all(
      Array.from({ length: 40 }, () =>
        run(taskKey, [{ action: "a", settlesAt: far }, { action: "b" }, { action: "c" }]),
      ),
    );
    const failing = await Promise.all(
      Array.from({ length: 40 }, () => run(taskKey, [{ action: "a", settlesAt: start + 1000 }])),
    );
    for (const key of confirmed) await settled(key, 3, "CONFIRMED");
    for (const key of failing) await settled(key, 1);
    now = start + 5000;
    for (const key of failing) expect((await settled(key, 1, "FAILED")).scores.trajectory).toBe(0);
    await trained(taskKey, 80, 80);

    const deadline = now + 3_600_000;
    const afterA = await settled(await run(taskKey, [{ action: "a", settlesAt: deadline }]), 1, "OPEN");
    const afterB = await settled(
      await run(taskKey, [{ action: "a", settlesAt: deadline }, { action: "b" }]),
      2,
      "OPEN",
    );
    inRange(afterA.scores);
    inRange(afterB.scores);
    expect(afterA.scores.trajectory).not.toBeNull();
    expect(afterB.scores.trajectory!).toBeGreaterThan(afterA.scores.trajectory!);
    // "The open outcomes most likely to fail", least likely to confirm first.
    const risky = await t.request(
      "GET",
      `/v1/outcomes?task_key=${taskKey}&status=OPEN&sort=trajectory&order=asc&limit=20`,
    );
    expect((risky.body as { outcomes: Outcome[] }).outcomes.map((o) => o.key)).toEqual([afterA.key, afterB.key]);
  });

  it("teaches no model with a replayed dead letter or a redelivered stream entry", async () => {
    const taskKey = await task("done");
    const key = await run(taskKey, [{ action: "step", value: 1 }, { action: "done" }]);
    await settled(key, 2, "CONFIRMED");
    await trained(taskKey, 1, 1);
    const before = await partials(taskKey);

    // An event after the verdict is dead-lettered; its replay is rejected again, and neither trains.
    expect(
      (await t.request("POST", "/v1/events", { outcome_key: key, action: "step", properties: { value: 5 } })).status,
    ).toBe(202);
    const letter = await eventually(
      async () => {
        const list = (await t.request("GET", "/v1/dlq?code=OUTCOME_NOT_OPEN&limit=1000")).body as {
          dead_letters: { id: string; outcome_key: string }[];
        };
        return list.dead_letters.find((d) => d.outcome_key === key);
      },
      10_000,
      "the dead letter",
    );
    expect((await t.request("POST", `/v1/dlq/${letter.id}/replay`)).status).toBe(202);
    await eventually(
      async () => {
        const list = (await t.request("GET", "/v1/dlq?code=OUTCOME_NOT_OPEN&limit=1000")).body as {
          dead_letters: { id: string; outcome_key: string }[];
        };
        return list.dead_letters.some((d) => d.outcome_key === key && d.id !== letter.id) ? true : undefined;
      },
      10_000,
      "the replay's dead letter",
    );
    expect(await partials(taskKey)).toEqual(before);

    // Every shard's group is moved back to its start: the entries still in the streams (at least each
    // shard's last one, which trimming keeps) are delivered again and skipped as already applied.
    const { redis, keys } = t.app;
    const processed = await metricValue(t.app.metricsPort, "verdict_events_processed_total");
    for (let shard = 0; shard < t.options.shards; shard++)
      await redis.xgroup("SETID", keys.stream(shard), CONSUMER_GROUP, "0");
    await eventually(
      async () => {
        for (let shard = 0; shard < t.options.shards; shard++) {
          const [pending] = (await redis.xpending(keys.stream(shard), CONSUMER_GROUP)) as [number];
          const groups = (await redis.xinfo("GROUPS", keys.stream(shard))) as unknown[][];
          const lag = groups[0]?.[groups[0].indexOf("lag") + 1];
          if (Number(pending ?? 0) !== 0 || Number(lag) !== 0) return undefined;
        }
        // Redelivered entries are counted as processed (skipped) when their batch commits.
        return (await metricValue(t.app.metricsPort, "verdict_events_processed_total")) > processed ? true : undefined;
      },
      10_000,
      "the redelivered entries acknowledged",
    );
    expect(await partials(taskKey)).toEqual(before);
    expect((await get(key)).observations.step?.count).toBe(1);
  });
});
