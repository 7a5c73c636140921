// The outcome caps end to end: events that would grow one outcome past a cap (the issue's 100 new actions
// with a 250 KB value each) are dead-lettered OUTCOME_TOO_LARGE, the snapshot stays under its cap, and the
// outcome's later events, the shard's other outcomes and their verdicts go on. Variant A and Variant B.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_OUTCOME_CAPS } from "../../src/outcomes/outcome-caps.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

interface Letter {
  code: string;
  message: string;
  outcome_key: string;
}

describe.each(DEPLOYMENTS)("outcome caps (%s)", (deployment) => {
  let t: TestApp;

  beforeAll(async () => {
    // One shard: every outcome shares it, so an outcome that held the shard up would show at once.
    t = await startTestApp(deployment, { shards: 1 });
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "COUNT(step)>=2 AND finish" })).status).toBe(
      201,
    );
  });
  afterAll(async () => {
    await t.stop();
  });

  async function accepted(path: string, body: unknown): Promise<void> {
    const reply = await t.request("POST", path, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  }

  async function outcome(
    key: string,
  ): Promise<{ status: string; observations: Record<string, { count: number; last_value: unknown }> } | undefined> {
    const reply = await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`);
    return reply.status === 200
      ? (reply.body as { status: string; observations: Record<string, { count: number; last_value: unknown }> })
      : undefined;
  }

  const confirmed = (key: string): Promise<true> =>
    eventually(
      async () => ((await outcome(key))?.status === "CONFIRMED" ? true : undefined),
      30_000,
      `${key} CONFIRMED`,
    );

  async function tooLarge(key: string): Promise<Letter[]> {
    const list = (await t.request("GET", "/v1/dlq?code=OUTCOME_TOO_LARGE&limit=1000")).body as {
      dead_letters: Letter[];
    };
    return list.dead_letters.filter((letter) => letter.outcome_key === key);
  }

  async function allLetters(): Promise<Letter[]> {
    const letters: Letter[] = [];
    let cursor: string | null = null;
    do {
      const page = (
        await t.request("GET", `/v1/dlq?limit=20${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      ).body as { dead_letters: Letter[]; next_cursor: string | null };
      letters.push(...page.dead_letters);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return letters;
  }

  it("refuses an outcome's 257th distinct action and keeps applying the actions it has", async () => {
    expect((await t.request("POST", "/v1/outcomes", { key: "wide", task_key: "t" })).status).toBe(201);
    const events = Array.from({ length: DEFAULT_OUTCOME_CAPS.maxActions + 1 }, (_, i) => ({
      outcome_key: "wide",
      action: `a${i}`,
    }));
    await accepted("/v1/events/batch", { events });
    await accepted("/v1/events/batch", {
      events: [
        { outcome_key: "wide", action: "a0" },
        { outcome_key: "wide", action: "a0" },
      ],
    });
    const letters = await eventually(
      async () => {
        const found = await tooLarge("wide");
        return found.length === 1 ? found : undefined;
      },
      30_000,
      "the 257th action's dead letter",
    );
    expect(letters[0]?.message).toContain("VERDICT_OUTCOME_MAX_ACTIONS");
    const wide = await eventually(
      async () => {
        const read = await outcome("wide");
        return read?.observations.a0?.count === 3 ? read : undefined;
      },
      30_000,
      "the known action's later events",
    );
    expect(Object.keys(wide.observations)).toHaveLength(DEFAULT_OUTCOME_CAPS.maxActions);
    expect(wide.observations[`a${DEFAULT_OUTCOME_CAPS.maxActions}`]).toBeUndefined();
  });

  it("creates no Variant B outcome from a first event over a cap; the key's next event creates it", async () => {
    for (const [path, body] of [
      ["/v1/agents/capped", { name: "Capped", condition: "done" }],
      ["/v1/rate-cards/capped", { currency: "EUR", entries: [{ agent_key: "capped", unit_amount: 100 }] }],
      ["/v1/customers/capped", { name: "Capped", rate_card_key: "capped" }],
    ] as const) {
      expect((await t.request("PUT", path, body)).status).toBe(201);
    }
    await accepted("/v1/events", {
      key: "b-big",
      customer_key: "capped",
      action: "start",
      properties: { value: "v".repeat(20_000) },
    });
    await eventually(
      async () => ((await tooLarge("b-big")).length === 1 ? true : undefined),
      30_000,
      "the Variant B dead letter",
    );
    expect(await outcome("b-big")).toBeUndefined();
    await accepted("/v1/events", { key: "b-big", customer_key: "capped", action: "done", properties: { value: 1 } });
    await confirmed("b-big");
  });

  it("dead-letters 100 events with a new action and a 250 KB value each, and the outcome and its shard go on", async () => {
    for (const key of ["big", "neighbour"])
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    const value = "v".repeat(250_000);
    // In batches of 20 (5 MB apiece, under the batch body limit), a neighbour's event between them.
    for (let batch = 0; batch < 5; batch++) {
      const events = Array.from({ length: 20 }, (_, i) => ({
        outcome_key: "big",
        action: `action_${batch * 20 + i}`,
        properties: { value },
      }));
      await accepted("/v1/events/batch", { events });
      await accepted("/v1/events", { outcome_key: "neighbour", action: "step", properties: { value: batch } });
    }
    await accepted("/v1/events/batch", {
      events: [
        { outcome_key: "big", action: "step", properties: { value: "small" } },
        { outcome_key: "big", action: "step" },
        { outcome_key: "big", action: "finish" },
      ],
    });
    await accepted("/v1/events", { outcome_key: "neighbour", action: "finish" });

    await confirmed("big");
    await confirmed("neighbour");
    // Committed before the verdict they precede; read once, in small pages (each letter holds its 250 KB event).
    const letters = (await allLetters()).filter((letter) => letter.outcome_key === "big");
    expect(letters).toHaveLength(100);
    expect(letters.every((letter) => letter.code === "OUTCOME_TOO_LARGE")).toBe(true);
    expect(letters.every((letter) => letter.message.includes("VERDICT_OUTCOME_MAX_VALUE_BYTES"))).toBe(true);

    const big = await outcome("big");
    expect(Object.keys(big?.observations ?? {}).sort()).toEqual(["finish", "step"]);
    expect(big?.observations.step).toMatchObject({ count: 2, last_value: "small" });
    expect((await outcome("neighbour"))?.observations.step?.count).toBe(5);
    const snapshot = await t.app.redis.strlen(t.app.keys.outcome(0, t.accountId, "big"));
    expect(snapshot).toBeGreaterThan(0);
    expect(snapshot).toBeLessThanOrEqual(DEFAULT_OUTCOME_CAPS.maxSnapshotBytes);
  });
});
