// Deadlines in bulk: thousands of outcomes share one settles_at and two worker processes force them while
// one of them is killed with SIGKILL as the deadline passes. Every outcome ends with the verdict its
// condition gives at that instant (true then -> CONFIRMED, else FAILED), and every confirmed Variant B
// outcome has exactly one charge, confirmed at settles_at itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";

const TASK_OUTCOMES = 3000;
const AGENT_OUTCOMES = 1000;
const BATCH = 500;
/** Generous: everything is sent before the deadline, however slow this machine is today. */
const SETUP_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DEPLOYMENTS)("a deadline storm with a worker killed (%s)", (deployment) => {
  let t: TestApp;
  const workers: VerdictProcess[] = [];

  beforeAll(async () => {
    t = await startTestApp(deployment, { role: "ingress", shards: 16, leaseTtlMs: 1000 });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await t.stop();
  });

  async function send(events: unknown[]): Promise<void> {
    for (let i = 0; i < events.length; i += BATCH) {
      const reply = await t.request("POST", "/v1/events/batch", { events: events.slice(i, i + BATCH) });
      expect(reply.status).toBe(202);
      expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    }
  }

  async function all<T>(path: string, field: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const page = (
        await t.request("GET", `${path}${path.includes("?") ? "&" : "?"}limit=1000${cursor ? `&cursor=${cursor}` : ""}`)
      ).body as Record<string, unknown>;
      items.push(...(page[field] as T[]));
      cursor = page.next_cursor as string | null;
    } while (cursor !== null);
    return items;
  }

  it("forces every outcome once, to the verdict its condition gives at settles_at", async () => {
    const env = envFor(t.options);
    for (let i = 0; i < 2; i++) workers.push(await spawnVerdict("worker", env));
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    // Neither condition locks before the deadline: a value can still move either way until then.
    await put("/v1/tasks/storm", { name: "storm", condition: "level >= 5" });
    await put("/v1/agents/closer", { name: "closer", condition: "step >= 5" });
    await put("/v1/rate-cards/card", { currency: "USD", entries: [{ agent_key: "closer", unit_amount: 100 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });

    const settlesAt = Math.ceil((Date.now() + SETUP_MS) / 1000) * 1000;
    const deadline = new Date(settlesAt).toISOString();
    // Task outcomes: a third true at the deadline, a third false, a third never told (unset: false).
    const taskKeys = Array.from({ length: TASK_OUTCOMES }, (_, i) => `task:${i}`);
    for (let i = 0; i < taskKeys.length; i += 100) {
      await Promise.all(
        taskKeys
          .slice(i, i + 100)
          .map(async (key) =>
            expect(
              (await t.request("POST", "/v1/outcomes", { key, task_key: "storm", settles_at: deadline })).status,
            ).toBe(201),
          ),
      );
    }
    const taskExpected = (i: number): string => (i % 3 === 0 ? "CONFIRMED" : "FAILED");
    await send(
      taskKeys.flatMap((key, i) =>
        i % 3 === 2 ? [] : [{ outcome_key: key, action: "level", properties: { value: i % 3 === 0 ? 7 : 1 } }],
      ),
    );
    // Agent outcomes, opened by their event, which sets the same deadline: half true then, half false.
    const agentKeys = Array.from({ length: AGENT_OUTCOMES }, (_, i) => `agent:${i}`);
    const agentExpected = (i: number): string => (i % 2 === 0 ? "CONFIRMED" : "FAILED");
    await send(
      agentKeys.map((key, i) => ({
        key,
        customer_key: "acme",
        action: "step",
        properties: { value: i % 2 === 0 ? 9 : 2, settles_at: deadline },
      })),
    );
    if (Date.now() > settlesAt - 1000) throw new Error(`setup took past the deadline it set ${SETUP_MS} ms ahead`);

    // One worker dies as the storm starts; its shards' verdicts are made by the survivor or its replacement.
    await sleep(settlesAt + 300 - Date.now());
    await workers.shift()?.kill("SIGKILL");
    workers.push(await spawnVerdict("worker", env));

    type Listed = { key: string; status: string };
    const outcomes = await eventually(
      async () => {
        const listed = await all<Listed>("/v1/outcomes", "outcomes");
        return listed.length === TASK_OUTCOMES + AGENT_OUTCOMES && listed.every((o) => o.status !== "OPEN")
          ? listed
          : undefined;
      },
      120_000,
      "every outcome forced",
    );
    const status = new Map(outcomes.map((o) => [o.key, o.status]));
    taskKeys.forEach((key, i) => expect(status.get(key), key).toBe(taskExpected(i)));
    agentKeys.forEach((key, i) => expect(status.get(key), key).toBe(agentExpected(i)));

    // Exactly once: one charge per confirmed agent outcome, none for the failed, each at the deadline.
    const charges = await all<{ outcome_key: string; confirmed_at: string }>(
      "/v1/charges?customer_key=acme",
      "charges",
    );
    const charged = charges.map((c) => c.outcome_key).sort();
    expect(charged).toEqual(agentKeys.filter((_, i) => agentExpected(i) === "CONFIRMED").sort());
    expect(new Set(charges.map((c) => c.confirmed_at))).toEqual(new Set([deadline]));
    expect((await t.request("GET", "/v1/dlq")).body).toMatchObject({ dead_letters: [] });
  }, 360_000);
});
