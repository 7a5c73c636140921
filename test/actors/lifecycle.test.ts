// The outcome lifecycle end to end through HTTP, on a standalone Redis and on a cluster: tasks, opening,
// events, verdicts (locks, settlement, quiescence), reads, dead letters and replay, account isolation.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadLetterStore } from "../../src/stores/dead-letter-store.js";
import { shardOf } from "../../src/streams/shard.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

interface Outcome {
  key: string;
  status: string;
  goal: string | null;
  progress: number;
  settles_at: string | null;
  condition: string;
  observations: Record<string, { count: number; last_value: unknown; last_at: string }>;
  scores: Record<string, unknown>;
}

interface DeadLetter {
  id: string;
  code: string;
  outcome_key: string;
  event: Record<string, unknown>;
  attempts: number;
}

const unique = (label: string): string => `${label}:${randomBytes(4).toString("hex")}`;

describe.each(DEPLOYMENTS)("outcome lifecycle (%s)", (deployment) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(async () => {
    await t.stop();
  });

  async function task(condition: string, extra: Record<string, unknown> = {}): Promise<string> {
    const key = unique("task");
    const put = await t.request("PUT", `/v1/tasks/${encodeURIComponent(key)}`, {
      name: "Support ticket",
      goal: "Resolve the ticket",
      condition,
      ...extra,
    });
    expect(put.status).toBe(201);
    return key;
  }

  async function open(taskKey: string, extra: Record<string, unknown> = {}): Promise<string> {
    const key = unique("ticket");
    const opened = await t.request("POST", "/v1/outcomes", { key, task_key: taskKey, ...extra });
    expect(opened.status).toBe(201);
    return key;
  }

  async function send(outcomeKey: string, action: string, properties?: Record<string, unknown>): Promise<void> {
    const sent = await t.request("POST", "/v1/events", {
      outcome_key: outcomeKey,
      action,
      ...(properties ? { properties } : {}),
    });
    expect(sent.status).toBe(202);
  }

  const get = async (key: string, token?: string) =>
    t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`, undefined, token);

  /** Waits until the outcome shows `count` events of `action` (the actor applies asynchronously). */
  async function applied(key: string, action: string, count: number): Promise<Outcome> {
    return eventually(
      async () => {
        const outcome = (await get(key)).body as Outcome;
        return outcome.observations?.[action]?.count === count ? outcome : undefined;
      },
      10_000,
      `${count} ${action} on ${key}`,
    );
  }

  async function status(key: string, wanted: string, timeoutMs = 10_000): Promise<Outcome> {
    return eventually(
      async () => {
        const outcome = (await get(key)).body as Outcome;
        return outcome.status === wanted ? outcome : undefined;
      },
      timeoutMs,
      `${key} ${wanted}`,
    );
  }

  async function deadLetters(code: string): Promise<DeadLetter[]> {
    const listed = await t.request("GET", `/v1/dlq?code=${code}&limit=1000`);
    expect(listed.status).toBe(200);
    return (listed.body as { dead_letters: DeadLetter[] }).dead_letters;
  }

  it("shows observations, the annotated condition and progress while OPEN", async () => {
    const key = await open(await task("COUNT(agent_response)>=2 AND NOT escalated AND customer_csat_set"));
    const fresh = (await get(key)).body as Outcome;
    expect(fresh).toMatchObject({
      key,
      status: "OPEN",
      goal: "Resolve the ticket",
      settles_at: null,
      observations: {},
    });
    expect(fresh.scores).toEqual({ trajectory: null, anomaly: null, novelty: null });

    await send(key, "agent_response", { value: "hello" });
    await send(key, "agent_response");
    await send(key, "agent_response", { value: "bye", tone: "warm" });
    await send(key, "note_added");
    const outcome = await applied(key, "note_added", 1);
    expect(outcome.status).toBe("OPEN");
    expect(outcome.condition).toBe("✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✗customer_csat_set");
    expect(outcome.progress).toBeCloseTo(2 / 3, 10);
    expect(outcome.observations.agent_response).toMatchObject({ count: 3, last_value: "bye" });
    expect(outcome.observations.note_added).toMatchObject({ count: 1, last_value: null });
    expect(Date.parse(outcome.observations.agent_response?.last_at ?? "")).not.toBeNaN();
  });

  it("confirms when the condition locks true and fails when it locks false", async () => {
    // `NOT escalated` is only true now until settlement, so it can fail a condition early but never lock one true.
    const good = await open(await task("COUNT(agent_response)>=2 AND customer_csat_set"));
    const bad = await open(await task("COUNT(agent_response)>=2 AND NOT escalated AND customer_csat_set"));
    await send(good, "agent_response");
    await send(good, "agent_response");
    await send(good, "customer_csat_set", { value: 5 });
    await send(bad, "escalated");
    const confirmed = await status(good, "CONFIRMED");
    expect(confirmed.progress).toBe(1);
    expect(confirmed.settles_at).toBeNull();
    const failed = await status(bad, "FAILED");
    expect(failed.condition).toBe("✗COUNT(agent_response)>=2[0] AND ⊘NOT escalated AND ✗customer_csat_set");
  });

  it("forces the verdict at settles_at: true now confirms, false fails", async () => {
    const taskKey = await task("NOT escalated AND F(review:score>=4)", { settlement_period: "1s" });
    const happy = await open(taskKey);
    const unhappy = await open(taskKey);
    await send(happy, "review", { score: 5 });
    await send(unhappy, "review", { score: 2 });
    const opened = await applied(happy, "review", 1);
    expect(opened.status).toBe("OPEN");
    expect(opened.settles_at).not.toBeNull();
    const confirmed = await status(happy, "CONFIRMED", 6000);
    expect(confirmed.condition).toBe("~NOT escalated AND ✓F(~review:score>=4[5])");
    await status(unhappy, "FAILED", 6000);
  });

  it("honours properties.settles_at over the settlement period", async () => {
    const key = await open(await task("NOT escalated", { settlement_period: "1d" }));
    const deadline = new Date(Date.now() + 1500).toISOString();
    await send(key, "started", { settles_at: deadline });
    const outcome = await applied(key, "started", 1);
    expect(outcome.settles_at).toBe(deadline);
    await status(key, "CONFIRMED", 6000);
  });

  it("confirms on quiescence once an IDLE window elapses, frozen at that instant", async () => {
    const key = await open(await task("done AND IDLE(2s)"));
    await send(key, "done");
    const pending = await applied(key, "done", 1);
    expect(pending.condition).toMatch(/^✓done AND ✗IDLE\(2s\)\[[12]s\]$/);
    const confirmed = await status(key, "CONFIRMED", 6000);
    expect(confirmed.condition).toBe("✓done AND ~IDLE(2s)[0s]");
    expect(confirmed.progress).toBe(1);
  });

  it("dead-letters events for unknown outcomes and for terminal ones, and replays them", async () => {
    const taskKey = await task("done");
    const missing = unique("missing");
    await send(missing, "done");
    const notFound = await eventually(
      async () => (await deadLetters("OUTCOME_NOT_FOUND")).find((d) => d.outcome_key === missing),
      10_000,
      "OUTCOME_NOT_FOUND",
    );
    expect(notFound.event).toMatchObject({ outcome_key: missing, action: "done" });
    expect(notFound.attempts).toBe(1);

    const key = await open(taskKey);
    await send(key, "done");
    await status(key, "CONFIRMED");
    await send(key, "late");
    const notOpen = await eventually(
      async () => (await deadLetters("OUTCOME_NOT_OPEN")).find((d) => d.outcome_key === key),
      10_000,
      "OUTCOME_NOT_OPEN",
    );
    expect(notOpen.event).toMatchObject({ action: "late" });
    expect(((await get(key)).body as Outcome).observations.late).toBeUndefined();

    // Open the missing outcome, then replay its dead letter: now it applies.
    const opened = await t.request("POST", "/v1/outcomes", { key: missing, task_key: taskKey });
    expect(opened.status).toBe(201);
    const replay = await t.request("POST", `/v1/dlq/${notFound.id}/replay`);
    expect(replay.status).toBe(202);
    await status(missing, "CONFIRMED");
    expect((await t.request("POST", `/v1/dlq/${notFound.id}/replay`)).status).toBe(404);
  });

  it("applies a replay once when its letter was put back after an unconfirmed enqueue and replayed again", async () => {
    const taskKey = await task("COUNT(step) >= 3");
    const key = unique("replayed");
    await send(key, "step");
    const letter = await eventually(
      async () => (await deadLetters("OUTCOME_NOT_FOUND")).find((d) => d.outcome_key === key),
      10_000,
      "OUTCOME_NOT_FOUND",
    );
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    const store = new DeadLetterStore(t.app.redis, t.app.keys, t.options.shards);
    const located = await store.get(t.accountId, letter.id);
    expect(located?.record.source).toMatch(/^\d+-\d+\/0$/);

    expect((await t.request("POST", `/v1/dlq/${letter.id}/replay`)).status).toBe(202);
    await applied(key, "step", 1);
    // What the replay route does when the enqueue is unconfirmed: the letter goes back, though the event got in.
    await store.restore(t.accountId, located!);
    const putBack = await eventually(
      async () => (await deadLetters("OUTCOME_NOT_FOUND")).find((d) => d.outcome_key === key),
      10_000,
      "letter put back",
    );
    expect(putBack.id).not.toBe(letter.id);
    expect((await t.request("POST", `/v1/dlq/${putBack.id}/replay`)).status).toBe(202);

    // A later event is applied after anything the second replay could have enqueued: the step counted once.
    await send(key, "marker");
    const outcome = await applied(key, "marker", 1);
    expect(outcome.observations.step?.count).toBe(1);
    expect((await deadLetters("OUTCOME_NOT_FOUND")).some((d) => d.outcome_key === key)).toBe(false);
  });

  it("keeps idempotency keys for the outcome's life once it is opened, though they were set to expire before it existed", async () => {
    const taskKey = await task("COUNT(step) >= 3");
    const key = unique("early");
    expect(
      (await t.request("POST", "/v1/events", { outcome_key: key, action: "step", idempotency_key: "k1" })).status,
    ).toBe(202);
    await eventually(
      async () => (await deadLetters("OUTCOME_NOT_FOUND")).find((d) => d.outcome_key === key),
      10_000,
      "OUTCOME_NOT_FOUND",
    );
    const hash = t.app.keys.idempotency(shardOf(t.accountId, key, t.options.shards), t.accountId, key);
    expect(await t.app.redis.pttl(hash)).toBeGreaterThan(0);
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    expect(await t.app.redis.pttl(hash)).toBe(-1);
  });

  it("opens outcomes idempotently: 201, 200 for the same task, 409 for another, 404 for no task", async () => {
    const taskKey = await task("done");
    const otherTask = await task("other");
    const key = unique("open");
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    const again = await t.request("POST", "/v1/outcomes", { key, task_key: taskKey });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ key, status: "OPEN" });
    const conflict = await t.request("POST", "/v1/outcomes", { key, task_key: otherTask });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error: { code: "OUTCOME_EXISTS" } });
    const noTask = await t.request("POST", "/v1/outcomes", { key: unique("x"), task_key: "nope" });
    expect(noTask.status).toBe(404);
    expect(noTask.body).toMatchObject({ error: { code: "TASK_NOT_FOUND" } });
  });

  it("reads keys with colons and lists events oldest first", async () => {
    const key = `${unique("a:b")}:c`;
    await t.request("POST", "/v1/outcomes", { key, task_key: await task("never") });
    for (let i = 0; i < 5; i++) await send(key, "step", { value: i });
    await applied(key, "step", 5);
    const first = await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}/events?limit=3`);
    expect(first.status).toBe(200);
    const page1 = first.body as {
      events: { id: string; action: string; properties: { value: number } }[];
      next_cursor: string;
    };
    expect(page1.events.map((e) => e.properties.value)).toEqual([0, 1, 2]);
    const second = await t.request(
      "GET",
      `/v1/outcomes/${encodeURIComponent(key)}/events?limit=3&cursor=${page1.next_cursor}`,
    );
    const page2 = second.body as { events: { properties: { value: number } }[]; next_cursor: string | null };
    expect(page2.events.map((e) => e.properties.value)).toEqual([3, 4]);
    expect(page2.next_cursor).toBeNull();
  });

  it("lists outcomes with filters and a cursor", async () => {
    const taskKey = await task("done");
    const keys = [await open(taskKey), await open(taskKey), await open(taskKey)];
    // Created after the last match, and filtered out: the last page still has no cursor (spec: null on the last page).
    await open(await task("done"));
    await send(keys[1] ?? "", "done");
    await status(keys[1] ?? "", "CONFIRMED");
    const open1 = await t.request("GET", `/v1/outcomes?task_key=${encodeURIComponent(taskKey)}&status=OPEN&limit=1`);
    const page = open1.body as { outcomes: Outcome[]; next_cursor: string };
    expect(page.outcomes.map((o) => o.key)).toEqual([keys[0]]);
    const open2 = await t.request(
      "GET",
      `/v1/outcomes?task_key=${encodeURIComponent(taskKey)}&status=OPEN&limit=1&cursor=${page.next_cursor}`,
    );
    const rest = open2.body as { outcomes: Outcome[]; next_cursor: string | null };
    expect(rest.outcomes.map((o) => o.key)).toEqual([keys[2]]);
    expect(rest.next_cursor).toBeNull();
  });

  it("pages through outcomes on every shard in creation order, with and without a filter", async () => {
    const taskKey = await task("done");
    // Opened one after another, so the list's order (creation time, then key) is this order even when two
    // share a millisecond; the keys hash to every shard.
    const base = unique("page");
    const keys = Array.from({ length: 30 }, (_, i) => `${base}-${String(i).padStart(2, "0")}`);
    for (const key of keys)
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);
    const confirmed = keys.filter((_, i) => i % 3 === 0);
    for (const key of confirmed) await send(key, "done");
    for (const key of confirmed) await status(key, "CONFIRMED");

    const walk = async (query: string): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const reply = await t.request(
          "GET",
          `/v1/outcomes?task_key=${encodeURIComponent(taskKey)}&limit=4${query}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        const page = reply.body as { outcomes: Outcome[]; next_cursor: string | null };
        expect(page.outcomes.length).toBeLessThanOrEqual(4);
        seen.push(...page.outcomes.map((o) => o.key));
        cursor = page.next_cursor;
      } while (cursor !== null);
      return seen;
    };
    expect(await walk("")).toEqual(keys);
    expect(await walk("&status=CONFIRMED")).toEqual(confirmed);
    expect(await walk("&status=OPEN")).toEqual(keys.filter((key) => !confirmed.includes(key)));
  });

  it("keeps accounts apart", async () => {
    const key = await open(await task("done"));
    const other = await t.newAccount();
    const foreign = await get(key, other.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: { code: "OUTCOME_NOT_FOUND" } });
    const listed = await t.request("GET", "/v1/outcomes", undefined, other.token);
    expect((listed.body as { outcomes: unknown[] }).outcomes).toEqual([]);
    expect(((await t.request("GET", "/v1/tasks", undefined, other.token)).body as { tasks: unknown[] }).tasks).toEqual(
      [],
    );
  });

  it("manages tasks: canonical condition, replace, delete", async () => {
    const key = unique("task");
    const path = `/v1/tasks/${encodeURIComponent(key)}`;
    const created = await t.request("PUT", path, {
      name: "T",
      condition: "(a AND b) AND COUNT(x) >= 2",
      settlement_period: "90m",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      key,
      name: "T",
      goal: null,
      condition: "a AND b AND COUNT(x)>=2",
      settlement_period: "1h30m",
    });
    expect((await t.request("PUT", path, { name: "T2", condition: { action: "a" } })).status).toBe(200);
    expect((await t.request("GET", path)).body).toMatchObject({ name: "T2", condition: "a" });
    const bad = await t.request("PUT", path, { name: "T", condition: "a AND (b" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "VALIDATION_ERROR", details: [{ path: "condition" }] } });
    expect((await t.request("DELETE", path)).status).toBe(204);
    expect((await t.request("GET", path)).status).toBe(404);
    const tasks = (await t.request("GET", "/v1/tasks")).body as { tasks: { key: string }[] };
    expect(tasks.tasks.some((x) => x.key === key)).toBe(false);
  });
});

describe.each(DEPLOYMENTS)("outcome list order within one millisecond (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    // Frozen: every outcome is created in the same millisecond, so the list orders them by key alone.
    const now = Date.parse("2026-05-01T12:00:00Z");
    t = await startTestApp(deployment, {}, { clock: () => now });
  });
  afterAll(() => t.stop());

  it("pages through keys in Redis's byte order, each once, when UTF-16 order would differ", async () => {
    const taskKey = unique("task");
    expect(
      (await t.request("PUT", `/v1/tasks/${encodeURIComponent(taskKey)}`, { name: "n", condition: "done" })).status,
    ).toBe(201);
    // "\uE000" sorts before "😀" by bytes (EE.. < F0..) but after it by UTF-16 units (E000 > D83D); with
    // the two on different shards, a merge by `<` ended page one at 😀 and page two then began past "\uE000".
    let prefix = unique("order");
    while (
      shardOf(t.accountId, `${prefix}\uE000`, t.options.shards) ===
      shardOf(t.accountId, `${prefix}😀`, t.options.shards)
    )
      prefix = unique("order");
    const keys = [`${prefix}😀`, `${prefix}\uE000`, `${prefix}a`, `${prefix}é`];
    for (const key of keys)
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: taskKey })).status).toBe(201);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply = await t.request(
        "GET",
        `/v1/outcomes?task_key=${encodeURIComponent(taskKey)}&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      const page = reply.body as { outcomes: Outcome[]; next_cursor: string | null };
      seen.push(...page.outcomes.map((o) => o.key));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  });
});
