// The open-outcome quota: each shard holds at most ceil(quota / shards) of an account's open outcomes,
// counted in the shard's slot by open-outcome.lua (POST /v1/outcomes) and by the worker's commits (Variant
// B outcomes opened by a first event, verdicts closing outcomes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUOTAS } from "../../src/config/quotas.js";
import { shardOf } from "../../src/streams/shard.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

const SHARDS = 2;
const QUOTA = 20;
const PER_SHARD = QUOTA / SHARDS;

interface DeadLetter {
  code: string;
  outcome_key: string;
}

describe.each(DEPLOYMENTS)("open-outcome quota (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(deployment, { shards: SHARDS, quotas: { ...DEFAULT_QUOTAS, openOutcomes: QUOTA } });
  });
  afterAll(() => t?.stop());

  /** A fresh account with a task that closes on `done`, and a Variant B contract. */
  async function account(): Promise<{
    accountId: string;
    request: (method: string, path: string, body?: unknown) => ReturnType<TestApp["request"]>;
  }> {
    const { accountId, token } = await t.newAccount();
    const request = (method: string, path: string, body?: unknown): ReturnType<TestApp["request"]> =>
      t.request(method, path, body, token);
    expect((await request("PUT", "/v1/tasks/t", { name: "t", condition: "done" })).status).toBe(201);
    expect((await request("PUT", "/v1/agents/bot", { name: "bot", condition: "never" })).status).toBe(201);
    expect(
      (
        await request("PUT", "/v1/rate-cards/card", {
          currency: "EUR",
          entries: [{ agent_key: "bot", unit_amount: 1 }],
        })
      ).status,
    ).toBe(201);
    expect((await request("PUT", "/v1/customers/acme", { name: "Acme", rate_card_key: "card" })).status).toBe(201);
    return { accountId, request };
  }

  /** What the quota lets open of `keys`, all tried once: each shard's share, or fewer if fewer land there. */
  function allowed(accountId: string, keys: readonly string[]): number {
    const perShard = new Array<number>(SHARDS).fill(0);
    for (const key of keys) perShard[shardOf(accountId, key, SHARDS)]!++;
    return perShard.reduce((sum, n) => sum + Math.min(PER_SHARD, n), 0);
  }

  async function listed(
    request: (method: string, path: string) => ReturnType<TestApp["request"]>,
  ): Promise<{ outcomes: string[]; letters: DeadLetter[] }> {
    const outcomes = (
      (await request("GET", "/v1/outcomes?limit=500")).body as { outcomes: { key: string }[] }
    ).outcomes.map((o) => o.key);
    const letters = ((await request("GET", "/v1/dlq?limit=500")).body as { dead_letters: DeadLetter[] }).dead_letters;
    return { outcomes, letters };
  }

  it("opens exactly each shard's share of 50 concurrent POST /v1/outcomes, refuses the rest 403, and a verdict frees a slot", async () => {
    const { accountId, request } = await account();
    const keys = Array.from({ length: 50 }, (_, i) => `k${i}`);
    const answers = await Promise.all(keys.map((key) => request("POST", "/v1/outcomes", { key, task_key: "t" })));
    const expected = allowed(accountId, keys);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(expected);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(50 - expected);
    expect(refused[0]!.body).toMatchObject({ error: { code: "QUOTA_EXCEEDED", quota: "open_outcomes", limit: QUOTA } });

    // Settle one outcome of a full shard: its slot takes a refused key of the same shard.
    const refusedKey = keys[answers.findIndex((a) => a.status === 403)]!;
    const shard = shardOf(accountId, refusedKey, SHARDS);
    const openKey = keys.find((key, i) => answers[i]!.status === 201 && shardOf(accountId, key, SHARDS) === shard)!;
    expect((await request("POST", "/v1/events", { outcome_key: openKey, action: "done" })).status).toBe(202);
    await eventually(
      async () =>
        (await request("POST", "/v1/outcomes", { key: refusedKey, task_key: "t" })).status === 201 ? true : undefined,
      20_000,
      "a freed slot",
    );
    // The slot is taken again: the shard is full.
    const another = Array.from({ length: 200 }, (_, i) => `more${i}`).find(
      (key) => shardOf(accountId, key, SHARDS) === shard,
    )!;
    expect((await request("POST", "/v1/outcomes", { key: another, task_key: "t" })).status).toBe(403);
  });

  it("dead-letters a Variant B event that would open an outcome past the share (QUOTA_EXCEEDED), and counts those it opens", async () => {
    const { accountId, request } = await account();
    const keys = Array.from({ length: 30 }, (_, i) => `job${i}`);
    const batch = await request("POST", "/v1/events/batch", {
      events: keys.map((key) => ({ key, customer_key: "acme", agent_key: "bot", action: "step" })),
    });
    expect(batch.body).toMatchObject({ accepted: 30, failed: [] });
    const expected = allowed(accountId, keys);
    const seen = await eventually(
      async () => {
        const now = await listed(request);
        return now.outcomes.length + now.letters.length === 30 ? now : undefined;
      },
      20_000,
      "every event applied or dead-lettered",
    );
    expect(seen.outcomes).toHaveLength(expected);
    expect(seen.letters).toHaveLength(30 - expected);
    expect(new Set(seen.letters.map((l) => l.code))).toEqual(new Set(["QUOTA_EXCEEDED"]));
    // The outcomes opened by events fill the same quota the API opens against.
    const full = keys.find((key) => seen.letters.some((l) => l.outcome_key === key))!;
    const sameShard = Array.from({ length: 200 }, (_, i) => `api${i}`).find(
      (key) => shardOf(accountId, key, SHARDS) === shardOf(accountId, full, SHARDS),
    )!;
    expect((await request("POST", "/v1/outcomes", { key: sameShard, task_key: "t" })).status).toBe(403);
  });

  it("never lets the API and the worker together open more than a shard's share", async () => {
    const { accountId, request } = await account();
    const eventKeys = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const apiKeys = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const [, ...opens] = await Promise.all([
      request("POST", "/v1/events/batch", {
        events: eventKeys.map((key) => ({ key, customer_key: "acme", agent_key: "bot", action: "step" })),
      }),
      ...apiKeys.map((key) => request("POST", "/v1/outcomes", { key, task_key: "t" })),
    ]);
    const apiOpened = opens.filter((a) => a.status === 201).length;
    const seen = await eventually(
      async () => {
        const now = await listed(request);
        return now.outcomes.length - apiOpened + now.letters.length === eventKeys.length ? now : undefined;
      },
      20_000,
      "every event applied or dead-lettered",
    );
    expect(seen.outcomes).toHaveLength(allowed(accountId, [...eventKeys, ...apiKeys]));
    for (let shard = 0; shard < SHARDS; shard++) {
      const open = seen.outcomes.filter((key) => shardOf(accountId, key, SHARDS) === shard).length;
      expect(open).toBeLessThanOrEqual(PER_SHARD);
      expect(Number(await t.app.redis.hget(t.app.keys.openOutcomes(shard), accountId))).toBe(open);
    }
  });
});
