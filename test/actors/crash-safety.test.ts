// Exactly once in effect, whatever crashes: three worker processes consume 100,000 events over 2,000
// outcomes while one of them is killed with SIGKILL every two seconds and replaced. At the end every
// outcome counts exactly what was sent, and its last value is the last one sent (order held).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";

const OUTCOMES = 2000;
const EVENTS_PER_OUTCOME = 50;
const BATCH = 500;

describe.each(DEPLOYMENTS)("crash safety with worker kill -9 (%s)", (deployment) => {
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

  /**
   * Kills the oldest worker with SIGKILL every two seconds and starts a replacement, until stopped; stop
   * first waits for `atLeast` kills, so a fast run cannot end before the crashes it is meant to survive.
   */
  function killEveryTwoSeconds(env: Record<string, string>): { stop(atLeast: number): Promise<void> } {
    let killing = true;
    let kills = 0;
    const loop = (async () => {
      while (killing) {
        await new Promise((r) => setTimeout(r, 2000));
        if (!killing) break;
        const victim = workers.shift();
        await victim?.kill("SIGKILL");
        kills++;
        workers.push(await spawnVerdict("worker", env));
      }
    })();
    return {
      stop: async (atLeast) => {
        while (kills < atLeast) await new Promise((r) => setTimeout(r, 100));
        killing = false;
        await loop;
      },
    };
  }

  it("applies every accepted event exactly once, in order per outcome", async () => {
    const env = envFor(t.options);
    for (let i = 0; i < 3; i++) workers.push(await spawnVerdict("worker", env));

    const taskKey = "crash";
    expect((await t.request("PUT", `/v1/tasks/${taskKey}`, { name: "crash", condition: "never_sent" })).status).toBe(
      201,
    );
    const keys = Array.from({ length: OUTCOMES }, (_, i) => `crash:${i}`);
    for (let i = 0; i < keys.length; i += 100) {
      await Promise.all(
        keys
          .slice(i, i + 100)
          .map(async (key) =>
            expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201),
          ),
      );
    }

    const killer = killEveryTwoSeconds(env);

    // Event i of every outcome goes out before event i + 1 of any: batches interleave outcomes.
    let accepted = 0;
    for (let step = 0; step < EVENTS_PER_OUTCOME; step++) {
      for (let i = 0; i < keys.length; i += BATCH) {
        const events = keys
          .slice(i, i + BATCH)
          .map((key) => ({ outcome_key: key, action: "step", properties: { value: step } }));
        const reply = await t.request("POST", "/v1/events/batch", { events });
        expect(reply.status).toBe(202);
        const body = reply.body as { accepted: number; failed: unknown[] };
        expect(body.failed).toEqual([]);
        accepted += body.accepted;
      }
    }
    expect(accepted).toBe(OUTCOMES * EVENTS_PER_OUTCOME);

    // Keep killing for a while after the last event, then let the survivors finish.
    await new Promise((r) => setTimeout(r, 3000));
    await killer.stop(2);

    const pending = new Set(keys);
    await eventually(
      async () => {
        for (const key of [...pending].slice(0, 400)) {
          const outcome = (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as {
            observations: Record<string, { count: number; last_value: unknown }>;
          };
          const step = outcome.observations.step;
          if (step && step.count > EVENTS_PER_OUTCOME) throw new Error(`${key} applied ${step.count} events`);
          if (step?.count === EVENTS_PER_OUTCOME) {
            expect(step.last_value).toBe(EVENTS_PER_OUTCOME - 1);
            pending.delete(key);
          }
        }
        return pending.size === 0 ? true : undefined;
      },
      120_000,
      "every outcome to count every event",
    );
    const letters = await t.request("GET", "/v1/dlq");
    expect((letters.body as { dead_letters: unknown[] }).dead_letters).toEqual([]);
  }, 240_000);

  it("charges every confirmed Variant B outcome exactly once while workers die mid-confirmation", async () => {
    const env = envFor(t.options);
    while (workers.length < 3) workers.push(await spawnVerdict("worker", env));
    const put = async (path: string, body: unknown) =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/agents/closer", { name: "closer", condition: "COUNT(step)>=2 AND done" });
    await put("/v1/rate-cards/card", { currency: "USD", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });

    const keys = Array.from({ length: 1000 }, (_, i) => `bill:${i}`);
    const killer = killEveryTwoSeconds(env);
    for (const action of ["step", "step", "done"]) {
      for (let i = 0; i < keys.length; i += BATCH) {
        const events = keys.slice(i, i + BATCH).map((key) => ({ key, customer_key: "acme", action }));
        const reply = await t.request("POST", "/v1/events/batch", { events });
        expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    await new Promise((r) => setTimeout(r, 2000));
    await killer.stop(2);

    const allCharges = async (): Promise<{ outcome_key: string; amount: number }[]> => {
      const all: { outcome_key: string; amount: number }[] = [];
      let cursor: string | null = null;
      do {
        const page = (
          await t.request("GET", `/v1/charges?customer_key=acme&limit=1000${cursor ? `&cursor=${cursor}` : ""}`)
        ).body as {
          charges: { outcome_key: string; amount: number }[];
          next_cursor: string | null;
        };
        all.push(...page.charges);
        cursor = page.next_cursor;
      } while (cursor !== null);
      return all;
    };
    await eventually(
      async () => ((await allCharges()).length >= keys.length ? true : undefined),
      120_000,
      "a charge for every outcome",
    );
    // Give any duplicate a moment to appear before counting.
    await new Promise((r) => setTimeout(r, 1000));
    const charged = await allCharges();
    expect(charged).toHaveLength(keys.length);
    expect(new Set(charged.map((c) => c.outcome_key)).size).toBe(keys.length);
    expect(charged.every((c) => c.amount === 100)).toBe(true);
    const usage = (await t.request("GET", "/v1/usage?customer_key=acme")).body;
    expect(usage).toEqual({ usage: [{ customer_key: "acme", billable_events: 3000 }] });
  }, 240_000);
});
