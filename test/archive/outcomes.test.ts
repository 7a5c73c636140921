// Settled outcomes move to PostgreSQL after their hot retention: Redis then holds no key of theirs, reads
// answer the same JSON as before the move, lists page across hot and archived outcomes with no gap or
// repeat (a cursor from before the move included), and an event sent to an archived outcome never reopens
// or changes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { masters } from "../../src/redis/client.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { DEPLOYMENTS } from "../support/redis.js";

const PER_VARIANT = 25;
const STAY_OPEN = 5;

interface Outcome {
  key: string;
  status: string;
}

describe.each(DEPLOYMENTS)("settled outcomes move to PostgreSQL (%s)", (deployment) => {
  let db: TestDatabase;
  let t: TestApp;
  const settledA = Array.from({ length: PER_VARIANT }, (_, i) => `task-${String(i).padStart(2, "0")}`);
  const settledB = Array.from({ length: PER_VARIANT }, (_, i) => `agent-${String(i).padStart(2, "0")}`);
  const open = Array.from({ length: STAY_OPEN }, (_, i) => `open-${i}`);
  const settled = [...settledA, ...settledB];
  const before = new Map<string, { outcome: unknown; events: unknown }>();
  let listedBefore: string[] = [];
  let chargesBefore: unknown[] = [];
  let firstPage: { keys: string[]; cursor: string } | undefined;

  const get = async (path: string): Promise<unknown> => {
    const reply = await t.request("GET", path);
    expect(reply.status, path).toBe(200);
    return reply.body;
  };

  /** Every outcome of the account, page by page (`limit` per page), from `cursor` on. */
  async function listAll(limit: number, cursor: string | null = null, query = ""): Promise<string[]> {
    const keys: string[] = [];
    do {
      const page = (await get(`/v1/outcomes?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`)) as {
        outcomes: Outcome[];
        next_cursor: string | null;
      };
      keys.push(...page.outcomes.map((o) => o.key));
      cursor = page.next_cursor;
    } while (cursor !== null);
    return keys;
  }

  /** Every charge of the account, page by page. */
  async function allCharges(limit: number, cursor: string | null = null, query = ""): Promise<{ id: string }[]> {
    const charges: { id: string }[] = [];
    do {
      const page = (await get(`/v1/charges?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`)) as {
        charges: { id: string }[];
        next_cursor: string | null;
      };
      charges.push(...page.charges);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return charges;
  }

  /** Entries left in the account's charge streams. */
  async function chargesInRedis(): Promise<number> {
    let total = 0;
    for (let shard = 0; shard < t.options.shards; shard++)
      total += await t.app.redis.xlen(t.app.keys.charges(shard, t.accountId));
    return total;
  }

  /** Redis keys of the deployment that name one of these outcomes, and index members that list them. */
  async function redisTraces(outcomeKeys: readonly string[]): Promise<string[]> {
    const names = new Set(outcomeKeys);
    const found: string[] = [];
    for (const node of masters(t.app.redis)) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", `${t.options.keyPrefix}*`, "COUNT", 1000);
        cursor = next;
        for (const key of keys) {
          if (outcomeKeys.some((name) => key.endsWith(`:${t.accountId}:${name}`))) found.push(key);
          const type = await node.type(key);
          if (type !== "zset") continue;
          for (const member of await node.zrange(key, "0", "-1")) {
            if (names.has(member.slice(member.indexOf("\n") + 1))) found.push(`${key} ${JSON.stringify(member)}`);
          }
        }
      } while (cursor !== "0");
    }
    return found;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestApp(deployment, { archiveUrl: db.url, hotRetentionMs: 2000 });
    const put = async (path: string, body: unknown): Promise<void> =>
      expect((await t.request("PUT", path, body)).status).toBeLessThan(300);
    await put("/v1/tasks/t", { name: "t", condition: "COUNT(step) >= 2 AND done" });
    await put("/v1/agents/closer", { name: "closer", condition: "COUNT(step) >= 2 AND done" });
    await put("/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 250 }] });
    await put("/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  }, 60_000);

  it("settles both variants and reads them as usual while they are hot", async () => {
    for (const key of [...settledA, ...open])
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    for (const [n, action] of ["step", "step", "done"].entries()) {
      const a = settledA.map((key) => ({
        outcome_key: key,
        action,
        idempotency_key: `${key}-${n}`,
        properties: { n, note: `${action} of ${key}`, nested: { z: 1, a: [true, null, 2.5] } },
      }));
      const b = settledB.map((key) => ({
        key,
        customer_key: "acme",
        action,
        idempotency_key: `${key}-${n}`,
        properties: { n },
      }));
      const openSteps = action === "done" ? [] : open.map((key) => ({ outcome_key: key, action }));
      for (const events of [a, b, openSteps].filter((batch) => batch.length > 0)) {
        const reply = await t.request("POST", "/v1/events/batch", { events });
        expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
      }
    }
    await eventually(
      async () => {
        for (const key of settled)
          if (((await get(`/v1/outcomes/${key}`)) as Outcome).status !== "CONFIRMED") return undefined;
        return true;
      },
      20_000,
      "every outcome confirmed",
    );
    for (const key of [...settled, ...open])
      before.set(key, {
        outcome: await get(`/v1/outcomes/${key}`),
        events: await get(`/v1/outcomes/${key}/events?limit=100`),
      });
    listedBefore = await listAll(7);
    expect([...listedBefore].sort()).toEqual([...settled, ...open].sort());
    const page = (await get("/v1/outcomes?limit=9")) as { outcomes: Outcome[]; next_cursor: string };
    firstPage = { keys: page.outcomes.map((o) => o.key), cursor: page.next_cursor };
    chargesBefore = await allCharges(7);
    expect(chargesBefore).toHaveLength(settledB.length);
  }, 60_000);

  it("moves them out of Redis after the retention, keeping only the open ones", async () => {
    await eventually(
      async () => ((await redisTraces(settled)).length === 0 ? true : undefined),
      30_000,
      "no Redis key or index member of a settled outcome",
    );
    const rows = await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes WHERE account_id = ${t.accountId}`;
    expect(Number(rows[0]!.n)).toBe(settled.length);
    const events = await db.sql<
      { n: string }[]
    >`SELECT count(*) AS n FROM outcome_events WHERE account_id = ${t.accountId}`;
    expect(Number(events[0]!.n)).toBe(settled.length * 3);
    expect((await redisTraces(open)).length).toBeGreaterThan(0);
    await eventually(
      async () => ((await chargesInRedis()) === 0 ? true : undefined),
      30_000,
      "no charge left in the Redis charge streams",
    );
  }, 60_000);

  it("lists the same charges from PostgreSQL, in the same order, filters and cursors included", async () => {
    for (const limit of [1, 7, 100]) expect(await allCharges(limit)).toEqual(chargesBefore);
    expect(await allCharges(4, null, "&customer_key=acme")).toEqual(chargesBefore);
    expect(await allCharges(4, null, "&customer_key=nobody")).toEqual([]);
    const first = (await get("/v1/charges?limit=3")) as { charges: unknown[]; next_cursor: string };
    expect([...first.charges, ...(await allCharges(10, first.next_cursor))]).toEqual(chargesBefore);
  }, 60_000);

  it("answers the same JSON for an outcome and its events after the move", async () => {
    for (const [key, was] of before) {
      expect(await get(`/v1/outcomes/${key}`), key).toEqual(was.outcome);
      expect(await get(`/v1/outcomes/${key}/events?limit=100`), key).toEqual(was.events);
    }
    // Paging the archived log by its cursor, one event at a time.
    const [key] = settledA;
    const one = (await get(`/v1/outcomes/${key}/events?limit=1`)) as { events: { id: string }[]; next_cursor: string };
    const rest = (await get(`/v1/outcomes/${key}/events?limit=5&cursor=${one.next_cursor}`)) as {
      events: { id: string }[];
      next_cursor: string | null;
    };
    expect([...one.events, ...rest.events]).toEqual((before.get(key!)!.events as { events: unknown[] }).events);
    expect(rest.next_cursor).toBeNull();
  }, 60_000);

  it("lists hot and archived outcomes as one order, with filters, and a cursor from before the move", async () => {
    for (const limit of [1, 7, 100]) expect(await listAll(limit)).toEqual(listedBefore);
    expect(await listAll(4, null, "&status=OPEN")).toEqual(listedBefore.filter((key) => open.includes(key)));
    expect(await listAll(4, null, "&status=CONFIRMED")).toEqual(listedBefore.filter((key) => settled.includes(key)));
    expect(await listAll(6, null, "&task_key=t")).toEqual(listedBefore.filter((key) => !settledB.includes(key)));
    expect(await listAll(6, null, "&customer_key=acme")).toEqual(listedBefore.filter((key) => settledB.includes(key)));
    expect([...firstPage!.keys, ...(await listAll(5, firstPage!.cursor))]).toEqual(listedBefore);
  }, 60_000);

  it("never reopens or changes an archived outcome: a repeat is dropped, a late event dead-lettered", async () => {
    const [a] = settledA;
    const [b] = settledB;
    const sent = [
      { outcome_key: a, action: "done", idempotency_key: `${a}-2` },
      { outcome_key: a, action: "step", idempotency_key: "late-a" },
      { key: b, customer_key: "acme", action: "done", idempotency_key: `${b}-2` },
      { key: b, customer_key: "acme", action: "step", idempotency_key: "late-b" },
    ];
    const reply = await t.request("POST", "/v1/events/batch", { events: sent });
    expect(reply.status).toBe(202);
    const letters = await eventually(
      async () => {
        const found = (
          (await get("/v1/dlq?limit=1000")) as {
            dead_letters: { code: string; outcome_key: string; event: { idempotency_key?: string } }[];
          }
        ).dead_letters;
        return found.length >= 2 ? found : undefined;
      },
      15_000,
      "the late events dead-lettered",
    );
    expect(letters.map((l) => [l.code, l.outcome_key, l.event.idempotency_key]).sort()).toEqual([
      ["OUTCOME_NOT_OPEN", b, "late-b"],
      ["OUTCOME_NOT_OPEN", a, "late-a"],
    ]);
    for (const key of [a!, b!]) {
      expect(await get(`/v1/outcomes/${key}`)).toEqual(before.get(key)!.outcome);
      expect(await get(`/v1/outcomes/${key}/events?limit=100`)).toEqual(before.get(key)!.events);
    }
    // Opening an archived key again answers the archived outcome (the same task) or refuses it.
    const reopened = await t.request("POST", "/v1/outcomes", { key: a, task_key: "t" });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toEqual(before.get(a!)!.outcome);
    expect((await t.request("PUT", "/v1/tasks/other", { name: "other", condition: "done" })).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: a, task_key: "other" })).status).toBe(409);
    const rows = await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes WHERE account_id = ${t.accountId}`;
    expect(Number(rows[0]!.n)).toBe(settled.length);
  }, 60_000);
});
