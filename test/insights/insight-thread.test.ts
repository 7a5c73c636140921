// The insight thread answers a read with the JSON the route sends, its Redis failures cross as the spec's
// errors, and reads it holds when the ingress stops answer 503 rather than hang.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import type { InsightRead } from "../../src/api/insight-answer.js";
import { InsightThread } from "../../src/app/insight-thread.js";
import { msgpack } from "../../src/codec/msgpack.js";
import { DAY_MS, dayOf, groupFieldOf, rollupMember } from "../../src/outcomes/insight-rollup.js";
import { connectRedis, type RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

// Spins inside Redis for ARGV[1] ms: every other client's command waits meanwhile.
const BUSY =
  "local t = redis.call('TIME'); local stop = t[1] * 1000 + t[2] / 1000 + tonumber(ARGV[1]); repeat t = redis.call('TIME') until t[1] * 1000 + t[2] / 1000 >= stop; return 1";
const SHARDS = 2;

describe("the insight thread", () => {
  let redis: PrivateRedis;
  let client: RedisClient;
  const keys = new Keys("thread");
  const day = dayOf(Date.UTC(2026, 10, 2));
  const read: InsightRead = {
    accountId: "acct",
    groupBy: "task",
    key: undefined,
    starts: [day],
    end: day + DAY_MS,
    perBucket: false,
    limit: 10,
    head: { bucket: "day", from: new Date(day).toISOString(), to: new Date(day + DAY_MS).toISOString(), tz: "UTC" },
  };
  const target = (): ConstructorParameters<typeof InsightThread>[0] => ({
    endpoint: { kind: "standalone", url: redis.url },
    keyPrefix: "thread",
    shards: SHARDS,
    archive: undefined,
    logLevel: "silent",
  });

  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = connectRedis({ kind: "standalone", url: redis.url });
    // Task "support": 4 opened at 09:00 of the day, 3 of them confirmed, in shard 1's hash.
    await client.hset(
      keys.insightRollupDay(1, "acct", day),
      groupFieldOf("task", "support"),
      msgpack.pack([9, "o", 4, 9, "c", 3]),
    );
    await client.zadd(keys.insightRollupDays(1), day, rollupMember(day, "acct"));
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.cleanup();
  });

  it("answers with the JSON of GET /v1/insights", async () => {
    const thread = new InsightThread(target());
    try {
      const answer = JSON.parse((await thread.answer(read)).toString()) as {
        groups_total: number;
        groups: Array<{ key: string; totals: { opened: number; confirmed: number } }>;
      };
      expect(answer.groups_total).toBe(1);
      expect(answer.groups[0]).toMatchObject({ key: "support", totals: { opened: 4, confirmed: 3 } });
    } finally {
      await thread.close();
    }
  });

  it("answers the reads it holds 503 when it is closed, and every read after", async () => {
    const thread = new InsightThread(target());
    await thread.answer(read);
    const spinning = client.eval(BUSY, 0, 500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const held = thread.answer(read).catch((error: unknown) => error);
    await thread.close();
    const failure = await held;
    await spinning;
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 1 });
    await expect(thread.answer(read)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
  });
});
