// Dead letters leave Redis: past VERDICT_DLQ_RETENTION or beyond VERDICT_DLQ_MAX_PER_ACCOUNT they move to
// PostgreSQL (or are dropped and counted without an archive), GET /v1/dlq lists both as one order with ids
// and cursors that do not change when a letter moves, replay works on both and sends an event once, and an
// oversized event keeps only a prefix in Redis while PostgreSQL holds it whole and a replay sends it whole.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Users } from "../../src/accounts/users.js";
import { unpackDeadLetter } from "../../src/outcomes/dead-letter.js";
import { FormClient } from "../dashboard/form-client.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { DEPLOYMENTS } from "../support/redis.js";

interface Letter {
  id: string;
  code: string;
  outcome_key: string;
  event: { outcome_key?: string; action: string; properties?: Record<string, unknown> };
  dead_lettered_at: string;
  event_truncated?: { properties_bytes: number; properties_prefix: string };
}

const MAX_EVENT_BYTES = 4096;
/** Nearly the 5 MiB batch body limit, as the reproducer. */
const BIG = 5_000_000;

function helpers(get: () => TestApp, db?: () => TestDatabase) {
  const walk = async (limit: number, code?: string, from: string | null = null): Promise<Letter[]> => {
    const all: Letter[] = [];
    let cursor = from;
    do {
      const query = new URLSearchParams({ limit: String(limit), ...(code && { code }), ...(cursor && { cursor }) });
      const reply = await get().request("GET", `/v1/dlq?${query.toString()}`);
      expect(reply.status).toBe(200);
      const page = reply.body as { dead_letters: Letter[]; next_cursor: string | null };
      all.push(...page.dead_letters);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return all;
  };
  const firstCursor = async (limit: number): Promise<string> => {
    const page = (await get().request("GET", `/v1/dlq?limit=${limit}`)).body as { next_cursor: string };
    return page.next_cursor;
  };
  const hot = async (): Promise<number[]> => {
    const t = get();
    return Promise.all(
      Array.from({ length: t.options.shards }, (_, shard) =>
        t.app.redis.xlen(t.app.keys.deadLetters(shard, t.accountId)),
      ),
    );
  };
  const hotTotal = async (): Promise<number> => (await hot()).reduce((a, b) => a + b, 0);
  const rows = async (): Promise<{ entry: string; letter: Buffer; replayed_at: Date | null }[]> =>
    db!().sql<{ entry: string; letter: Buffer; replayed_at: Date | null }[]>`
      SELECT shard || '-' || entry_ms || '-' || entry_seq AS entry, letter, replayed_at FROM dead_letters WHERE account_id = ${get().accountId}`;
  const deadLetter = async (keys: readonly string[], properties?: Record<string, unknown>): Promise<void> => {
    const reply = await get().request("POST", "/v1/events/batch", {
      events: keys.map((key) => ({ outcome_key: key, action: "step", ...(properties && { properties }) })),
    });
    expect(reply.status).toBe(202);
    expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
  };
  const listed = (count: number, code?: string): Promise<Letter[]> =>
    eventually(
      async () => {
        const all = await walk(100, code);
        return all.length >= count ? all : undefined;
      },
      30_000,
      `${count} dead letters listed`,
    );
  return { walk, firstCursor, hot, hotTotal, rows, deadLetter, listed };
}

const unique = (name: string): string => `${name}-${randomBytes(4).toString("hex")}`;

describe.each(DEPLOYMENTS)("dead letters moved to PostgreSQL after their retention (%s)", (deployment) => {
  let db: TestDatabase;
  let t: TestApp;
  const h = helpers(
    () => t,
    () => db,
  );

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestApp(deployment, { archiveUrl: db.url, dlqRetentionMs: 1500, dlqMaxEventBytes: MAX_EVENT_BYTES });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  }, 60_000);

  it("moves them out of Redis and lists them in one order, with the same ids, JSON and cursors, while they move", async () => {
    const keys = Array.from({ length: 30 }, (_, i) => unique(`never-opened-${i}`));
    await h.deadLetter(keys);
    const before = await h.listed(30);
    const cursor = await h.firstCursor(8);
    // Paging in small steps while the archiver moves them: every walk is the whole list, once, in order.
    let walks = 0;
    while ((await h.hotTotal()) > 0) {
      expect((await h.walk(4)).map((letter) => letter.id)).toEqual(before.map((letter) => letter.id));
      walks++;
      expect(walks).toBeLessThan(2000);
    }
    expect(await h.hotTotal()).toBe(0);
    for (let shard = 0; shard < t.options.shards; shard++)
      expect(await t.app.redis.xlen(t.app.keys.deadLettersCopied(shard))).toBe(0);
    const archived = await h.rows();
    expect(archived.map((row) => row.entry).sort()).toEqual(before.map((letter) => letter.id).sort());
    expect(await h.walk(7)).toEqual(before);
    expect(await h.walk(5, "OUTCOME_NOT_FOUND")).toEqual(before);
    expect(await h.walk(5, "OUTCOME_NOT_OPEN")).toEqual([]);
    // A cursor handed out while the letters were in Redis goes on from the same place.
    expect(await h.walk(100, undefined, cursor)).toEqual(before.slice(8));
  }, 120_000);

  it("counts archived letters on the dashboard home with those still in Redis, each once while they move", async () => {
    const email = `${unique("home")}@example.com`;
    await new Users(t.app.redis, t.app.keys).add(t.accountId, email, "a long enough password");
    const visitor = new FormClient(t.base);
    expect((await visitor.signIn(email, "a long enough password")).status).toBe(303);
    const shown = async (): Promise<number> =>
      Number(
        /data-testid="home-dead-letters"><span class="number">(\d+)</.exec(
          (await visitor.get("/dashboard/")).text,
        )?.[1],
      );
    const waiting = (await h.walk(100)).length;
    await h.deadLetter(Array.from({ length: 12 }, (_, i) => unique(`home-${i}`)));
    await h.listed(waiting + 12);
    while ((await h.hotTotal()) > 0) expect(await shown()).toBe(waiting + 12);
    expect(await shown()).toBe(waiting + 12);
    expect((await h.rows()).filter((row) => row.replayed_at === null)).toHaveLength(waiting + 12);
  }, 120_000);

  it("replays an archived letter once", async () => {
    expect(
      (await t.request("PUT", "/v1/tasks/steps", { name: "steps", condition: "COUNT(step) >= 3" })).status,
    ).toBeLessThan(300);
    const key = unique("late-open");
    await h.deadLetter([key]);
    const [letter] = await eventually(
      async () => {
        const found = (await h.walk(100)).filter((l) => l.outcome_key === key);
        return found.length === 1 &&
          (await h.rows()).some((row) => row.entry === found[0]!.id) &&
          (await h.hotTotal()) === 0
          ? found
          : undefined;
      },
      30_000,
      "the letter archived and gone from Redis",
    );
    expect((await t.request("POST", "/v1/outcomes", { key, task_key: "steps" })).status).toBe(201);
    const [first, second] = await Promise.all([
      t.request("POST", `/v1/dlq/${letter!.id}/replay`),
      t.request("POST", `/v1/dlq/${letter!.id}/replay`),
    ]);
    expect([first.status, second.status].sort()).toEqual([202, 404]);
    expect((await t.request("POST", `/v1/dlq/${letter!.id}/replay`)).status).toBe(404);
    // A later event is applied after the replay: the step counted once.
    expect((await t.request("POST", "/v1/events", { outcome_key: key, action: "marker" })).status).toBe(202);
    const outcome = await eventually(
      async () => {
        const body = (await t.request("GET", `/v1/outcomes/${key}`)).body as {
          observations: Record<string, { count: number }>;
        };
        return body.observations.marker ? body : undefined;
      },
      10_000,
      "the marker applied",
    );
    expect(outcome.observations.step?.count).toBe(1);
    expect((await h.walk(100)).some((l) => l.id === letter!.id)).toBe(false);
    expect((await h.rows()).find((row) => row.entry === letter!.id)?.replayed_at).not.toBeNull();
  }, 60_000);

  it("answers 404 to a replay of ids no letter can have, in Redis or in the archive", async () => {
    for (const id of [
      "0-253402300800000-0",
      "0-8640000000000000-0",
      "0-1-9223372036854775808",
      "0-1-0",
      "8-1-0",
      "0-18446744073709551615-18446744073709551615",
    ]) {
      const reply = await t.request("POST", `/v1/dlq/${encodeURIComponent(id)}/replay`);
      expect([reply.status, (reply.body as { error: { code: string } }).error.code], id).toEqual([
        404,
        "DEAD_LETTER_NOT_FOUND",
      ]);
    }
  });
});

describe.each(DEPLOYMENTS)("dead letters beyond the per-account count, and oversized events (%s)", (deployment) => {
  let db: TestDatabase;
  let t: TestApp;
  const h = helpers(
    () => t,
    () => db,
  );

  beforeAll(async () => {
    db = await createTestDatabase();
    // 16 over 8 shards: each shard keeps an account's newest 2 in Redis.
    // A 5 MB event takes a loaded machine's Redis a while to store: no "unconfirmed" for it.
    t = await startTestApp(deployment, {
      archiveUrl: db.url,
      shards: 8,
      dlqMaxPerAccount: 16,
      dlqMaxEventBytes: MAX_EVENT_BYTES,
      enqueueTimeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  }, 60_000);

  it("keeps at most the count in Redis and moves the oldest, listed in the same order", async () => {
    const keys = Array.from({ length: 60 }, (_, i) => unique(`counted-${i}`));
    await h.deadLetter(keys);
    const before = await h.listed(60);
    // Copied at once, deleted from Redis a grace period (30 s) after their rows committed.
    await eventually(
      async () => ((await h.hot()).every((n) => n <= 2) ? true : undefined),
      90_000,
      "at most 2 letters per shard in Redis",
    );
    const archived = await h.rows();
    expect(archived.length).toBeGreaterThanOrEqual(60 - 16);
    expect(await h.walk(9)).toEqual(before);
    // What stayed in Redis is each shard's newest.
    const inRedis = new Set<string>();
    for (let shard = 0; shard < t.options.shards; shard++) {
      for (const [id] of await t.app.redis.xrange(t.app.keys.deadLetters(shard, t.accountId), "-", "+"))
        inRedis.add(`${shard}-${id}`);
    }
    for (const letter of before) {
      const shard = letter.id.split("-")[0];
      const newer = before.filter(
        (other) => other.id.split("-")[0] === shard && other.dead_lettered_at > letter.dead_lettered_at,
      ).length;
      if (newer >= 2) expect(inRedis.has(letter.id)).toBe(false);
    }
  }, 150_000);

  it("keeps a prefix of a 5 MB event in Redis, the whole event in PostgreSQL, and replays it whole", async () => {
    const key = unique("big");
    await h.deadLetter([key], { blob: "x".repeat(BIG) });
    const letter = await eventually(
      async () => (await h.walk(100)).find((l) => l.outcome_key === key),
      30_000,
      "the big letter listed",
    );
    expect(letter.event.properties).toBeUndefined();
    expect(letter.event_truncated?.properties_bytes).toBe(BIG + '{"blob":""}'.length);
    expect(letter.event_truncated?.properties_prefix).toBe(`{"blob":"${"x".repeat(MAX_EVENT_BYTES - 9)}`);

    const [shard, ...entry] = letter.id.split("-");
    const stream = t.app.keys.deadLetters(Number(shard), t.accountId);
    const [kept] = (await t.app.redis.xrangeBuffer(stream, entry.join("-"), entry.join("-"))) as [Buffer, Buffer[]][];
    expect(kept![1][1]!.length).toBeLessThan(MAX_EVENT_BYTES + 1024);
    expect(Number(await t.app.redis.call("MEMORY", "USAGE", stream))).toBeLessThan(64 * 1024);
    // The whole event reaches PostgreSQL promptly and leaves the queue it waited in.
    const whole = await eventually(
      async () => (await h.rows()).find((row) => row.entry === letter.id),
      30_000,
      "the whole event in PostgreSQL",
    );
    expect((unpackDeadLetter(whole.letter).event.properties as { blob: string }).blob).toHaveLength(BIG);
    await eventually(
      async () => ((await t.app.redis.xlen(t.app.keys.deadLetterWholeEvents(Number(shard)))) === 0 ? true : undefined),
      30_000,
      "the queue of whole events drained",
    );

    // Replayed (the outcome is still not open, so it is set aside again): the new letter's event is whole.
    const replays = await Promise.all([
      t.request("POST", `/v1/dlq/${letter.id}/replay`),
      t.request("POST", `/v1/dlq/${letter.id}/replay`),
    ]);
    expect(replays.map((reply) => reply.status).sort()).toEqual([202, 404]);
    expect((await t.request("POST", `/v1/dlq/${letter.id}/replay`)).status).toBe(404);
    const again = await eventually(
      async () => (await h.walk(100)).find((l) => l.outcome_key === key && l.id !== letter.id),
      30_000,
      "the replayed event set aside again",
    );
    const replayed = await eventually(
      async () => (await h.rows()).find((row) => row.entry === again.id),
      30_000,
      "its whole event in PostgreSQL",
    );
    expect((unpackDeadLetter(replayed.letter).event.properties as { blob: string }).blob).toHaveLength(BIG);
  }, 120_000);
});

describe.each(DEPLOYMENTS)("dead letters without an archive (%s)", (deployment) => {
  let t: TestApp;
  let aged: TestApp;
  const h = helpers(() => t);
  const ha = helpers(() => aged);

  beforeAll(async () => {
    t = await startTestApp(deployment, { shards: 8, dlqMaxPerAccount: 8, dlqMaxEventBytes: MAX_EVENT_BYTES });
    aged = await startTestApp(deployment, { dlqRetentionMs: 1000 });
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
    await aged?.stop();
  }, 60_000);

  const dropped = async (app: TestApp, reason: string): Promise<number> => {
    const metric = await app.app.registry.getSingleMetric("verdict_dead_letters_dropped_total")!.get();
    return metric.values.find((value) => value.labels.reason === reason)?.value ?? 0;
  };

  it("drops those beyond the count and counts them", async () => {
    await h.deadLetter(Array.from({ length: 30 }, (_, i) => unique(`dropped-${i}`)));
    await eventually(
      async () =>
        (await h.hotTotal()) + (await dropped(t, "count")) === 30 && (await h.hot()).every((n) => n <= 1)
          ? true
          : undefined,
      30_000,
      "at most 1 letter per shard, the rest dropped",
    );
    expect((await h.walk(100)).length).toBe(await h.hotTotal());
  }, 60_000);

  it("drops those past the retention and counts them", async () => {
    await ha.deadLetter(Array.from({ length: 10 }, (_, i) => unique(`aged-${i}`)));
    await eventually(
      async () => ((await dropped(aged, "age")) === 10 && (await ha.hotTotal()) === 0 ? true : undefined),
      30_000,
      "every letter dropped after its retention",
    );
  }, 60_000);

  it("keeps only a prefix of an oversized event, and refuses to replay it", async () => {
    const key = unique("big");
    await h.deadLetter([key], { blob: "y".repeat(100_000) });
    const letter = await eventually(
      async () => (await h.walk(100)).find((l) => l.outcome_key === key),
      30_000,
      "the big letter listed",
    );
    expect(letter.event_truncated?.properties_bytes).toBe(100_000 + '{"blob":""}'.length);
    for (let shard = 0; shard < t.options.shards; shard++)
      expect(await t.app.redis.exists(t.app.keys.deadLetterWholeEvents(shard))).toBe(0);
    const replay = await t.request("POST", `/v1/dlq/${letter.id}/replay`);
    expect(replay.status).toBe(409);
    expect((replay.body as { error: { code: string } }).error.code).toBe("DEAD_LETTER_TRUNCATED");
    expect((await h.walk(100)).some((l) => l.id === letter.id)).toBe(true);
  }, 60_000);
});
