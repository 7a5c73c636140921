// The two-command start archives too: `verdict serve` with the embedded Redis and no VERDICT_ARCHIVE_URL runs
// PGlite under <dataDir>/pglite, settled outcomes leave Redis after their hot retention and read the same
// from it (dead letters too, after theirs), and they still do after a SIGTERM and a start on the same data dir.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/app.js";
import { spawnVerdict, type VerdictProcess } from "../support/processes.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const settledA = ["task-0", "task-1", "task-2"];
const settledB = ["agent-0", "agent-1", "agent-2"];
const settled = [...settledA, ...settledB];

interface Answers {
  outcomes: Map<string, { outcome: unknown; events: unknown }>;
  charges: unknown;
  deadLetters: unknown;
}

describe("the embedded archive (verdict serve without REDIS_URL or VERDICT_ARCHIVE_URL)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verdict-embedded-"));
  // No Redis, cluster or archive from the test run's environment: the embedded defaults.
  const env = {
    REDIS_URL: "",
    REDIS_CLUSTER_NODES: "",
    VERDICT_ARCHIVE_URL: "",
    VERDICT_DATA_DIR: dataDir,
    VERDICT_HOT_RETENTION: "2s",
    VERDICT_DLQ_RETENTION: "2s",
    VERDICT_INGRESS_PROCESSES: "1",
    VERDICT_WORKER_PROCESSES: "1",
    VERDICT_TOKEN_SECRET: randomBytes(32).toString("base64url"),
    VERDICT_LOG_LEVEL: "warn",
  };
  let verdict: VerdictProcess | undefined;
  let token = "";
  let before: Answers;

  async function get(path: string): Promise<unknown> {
    const reply = await fetch(`http://127.0.0.1:${verdict!.port}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reply.status, path).toBe(200);
    return reply.json();
  }

  async function send(method: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const reply = await fetch(`http://127.0.0.1:${verdict!.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: reply.status, body: await reply.json() };
  }

  async function answers(): Promise<Answers> {
    const outcomes = new Map<string, { outcome: unknown; events: unknown }>();
    for (const key of settled)
      outcomes.set(key, {
        outcome: await get(`/v1/outcomes/${key}`),
        events: await get(`/v1/outcomes/${key}/events?limit=100`),
      });
    return { outcomes, charges: await get("/v1/charges?limit=100"), deadLetters: await get("/v1/dlq?limit=100") };
  }

  /** Keys of the embedded Redis that name one of these outcomes. */
  async function redisKeysOf(names: readonly string[]): Promise<string[]> {
    const redis = new Redis({ path: join(dataDir, "redis.sock"), lazyConnect: true });
    try {
      await redis.connect();
      const found: string[] = [];
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", "*", "COUNT", 1000);
        cursor = next;
        found.push(...keys.filter((key) => names.some((name) => key.endsWith(`:${name}`))));
      } while (cursor !== "0");
      return found;
    } finally {
      redis.disconnect();
    }
  }

  /** Dead letters in the embedded Redis (entries of every dead-letter stream). */
  async function deadLettersInRedis(): Promise<number> {
    const redis = new Redis({ path: join(dataDir, "redis.sock"), lazyConnect: true });
    try {
      await redis.connect();
      let total = 0;
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", "*:dlq:*", "COUNT", 1000);
        cursor = next;
        for (const key of keys) total += await redis.xlen(key);
      } while (cursor !== "0");
      return total;
    } finally {
      redis.disconnect();
    }
  }

  async function stop(): Promise<void> {
    const child = verdict!.child;
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    verdict = undefined;
  }

  beforeAll(async () => {
    verdict = await spawnVerdict("all", env);
    const created = execFileSync(process.execPath, [CLI, "account", "create", "laptop"], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    token = (JSON.parse(created) as { token: string }).token;
  }, 60_000);

  afterAll(async () => {
    if (verdict) await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("moves settled outcomes of both variants out of Redis into PGlite, and answers the same", async () => {
    expect((await send("PUT", "/v1/tasks/t", { name: "t", condition: "COUNT(step) >= 2 AND done" })).status).toBe(201);
    expect(
      (await send("PUT", "/v1/agents/closer", { name: "closer", condition: "COUNT(step) >= 2 AND done" })).status,
    ).toBe(201);
    expect(
      (
        await send("PUT", "/v1/rate-cards/card", {
          currency: "EUR",
          entries: [{ agent_key: "closer", unit_amount: 250 }],
        })
      ).status,
    ).toBe(201);
    expect((await send("PUT", "/v1/customers/acme", { name: "Acme", rate_card_key: "card" })).status).toBe(201);
    for (const key of [...settledA, "open"])
      expect((await send("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    for (const [n, action] of ["step", "step", "done"].entries()) {
      const events = [
        ...settledA.map((key) => ({
          outcome_key: key,
          action,
          idempotency_key: `${key}-${n}`,
          properties: { n, note: `${action} of ${key}` },
        })),
        ...settledB.map((key) => ({
          key,
          customer_key: "acme",
          action,
          idempotency_key: `${key}-${n}`,
          properties: { n },
        })),
      ];
      const reply = await send("POST", "/v1/events/batch", { events });
      expect(reply.status).toBe(202);
      expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    }
    // A Variant B outcome is 404 until its worker applied the first event: keep waiting then too.
    const confirmed = async (key: string): Promise<boolean> => {
      const reply = await fetch(`http://127.0.0.1:${verdict!.port}/v1/outcomes/${key}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return reply.status === 200 && ((await reply.json()) as { status: string }).status === "CONFIRMED";
    };
    await eventually(
      async () => {
        for (const key of settled) if (!(await confirmed(key))) return undefined;
        return true;
      },
      30_000,
      "every outcome confirmed",
    );
    // Events for outcomes nobody opened, one too large to keep whole in Redis.
    const ghosts = [
      { outcome_key: "ghost-0", action: "step" },
      { outcome_key: "ghost-1", action: "step", properties: { blob: "z".repeat(20_000) } },
    ];
    expect((await send("POST", "/v1/events/batch", { events: ghosts })).status).toBe(202);
    await eventually(
      async () =>
        ((await get("/v1/dlq?limit=100")) as { dead_letters: unknown[] }).dead_letters.length === 2 ? true : undefined,
      30_000,
      "both dead letters listed",
    );
    before = await answers();
    expect((before.charges as { charges: unknown[] }).charges).toHaveLength(settledB.length);
    await eventually(
      async () => ((await deadLettersInRedis()) === 0 ? true : undefined),
      30_000,
      "no dead letter in Redis",
    );

    await eventually(
      async () => ((await redisKeysOf(settled)).length === 0 ? true : undefined),
      20_000,
      "no Redis key of a settled outcome",
    );
    // The same search finds the outcome that stays open: the keys of the settled ones are gone, not missed.
    expect((await redisKeysOf(["open"])).length).toBeGreaterThan(0);
    const after = await answers();
    expect(after.outcomes).toEqual(before.outcomes);
    expect(after.charges).toEqual(before.charges);
    expect(after.deadLetters).toEqual(before.deadLetters);
    expect(statSync(join(dataDir, "pglite", "PG_VERSION")).isFile()).toBe(true);
    // Only this user may connect to the archive's socket.
    expect(statSync(join(dataDir, "pglite.sock")).mode & 0o777).toBe(0o600);
  }, 60_000);

  it("still reads the archived outcomes the same after SIGTERM and a start on the same data dir", async () => {
    await stop();
    expect(existsSync(join(dataDir, "pglite.sock"))).toBe(false);
    verdict = await spawnVerdict("all", env);
    expect(await redisKeysOf(settled)).toEqual([]);
    const after = await answers();
    expect(after.outcomes).toEqual(before.outcomes);
    expect(after.charges).toEqual(before.charges);
    expect(after.deadLetters).toEqual(before.deadLetters);
  }, 60_000);

  it("lets verdict migrate and verdict archive run work on the archive the service serves", () => {
    const cli = (args: string[]): unknown =>
      JSON.parse(execFileSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: "utf8" }));
    expect(cli(["migrate"])).toEqual({ applied: [] });
    // Every settled outcome moved already, and the open one is not queued.
    expect(cli(["archive", "run"])).toEqual({ queued: 0 });
  }, 60_000);
});

describe("verdict migrate on a data dir no service runs on", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verdict-embedded-migrate-"));
  const env = {
    ...process.env,
    REDIS_URL: "",
    REDIS_CLUSTER_NODES: "",
    VERDICT_ARCHIVE_URL: "",
    VERDICT_DATA_DIR: dataDir,
    VERDICT_LOG_LEVEL: "warn",
  };

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("creates the embedded archive, applies every migration once and stops it", () => {
    const migrate = (): { applied: string[] } =>
      JSON.parse(execFileSync(process.execPath, [CLI, "migrate"], { env, encoding: "utf8" })) as { applied: string[] };
    const versions = readdirSync(fileURLToPath(new URL("../../src/archive-db/migrations/", import.meta.url)))
      .filter((name) => name.endsWith(".sql"))
      .map((name) => name.slice(0, -".sql".length))
      .sort();
    expect(migrate()).toEqual({ applied: versions });
    expect(existsSync(join(dataDir, "pglite.sock"))).toBe(false);
    expect(migrate()).toEqual({ applied: [] });
  }, 60_000);
});
