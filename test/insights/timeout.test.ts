// A rollup read Redis does not answer within the client's command timeout (a busy server whose connection
// stays up) is a 503 SERVICE_UNAVAILABLE to retry, not a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import type { RollupDay } from "../../src/outcomes/insight-rollup.js";
import { connectRedis, type RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { InsightStore } from "../../src/stores/insight-store.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

// Spins inside Redis for ARGV[1] ms: every other client's command waits meanwhile.
const BUSY =
  "local t = redis.call('TIME'); local stop = t[1] * 1000 + t[2] / 1000 + tonumber(ARGV[1]); repeat t = redis.call('TIME') until t[1] * 1000 + t[2] / 1000 >= stop; return 1";

describe("insight reads while Redis is busy", () => {
  let redis: PrivateRedis;
  let reader: RedisClient;
  let busy: RedisClient;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    reader = connectRedis({ kind: "standalone", url: redis.url }, { commandTimeoutMs: 100 });
    busy = connectRedis({ kind: "standalone", url: redis.url });
  });
  afterAll(async () => {
    reader?.disconnect();
    busy?.disconnect();
    await redis?.cleanup();
  });

  it("answers SERVICE_UNAVAILABLE when a read times out", async () => {
    const store = new InsightStore(reader, new Keys("t"), 4, undefined);
    const read: RollupDay[] = [];
    const sink = { hours: (): void => {}, days: (days: readonly RollupDay[]): void => void read.push(...days) };
    await expect(store.read("acct", 0, 3_600_000, sink)).resolves.toBeUndefined();
    expect(read).toEqual([]);
    const spinning = busy.eval(BUSY, 0, 1000);
    const failure: unknown = await store.read("acct", 0, 3_600_000, sink).catch((error: unknown) => error);
    await spinning;
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).code).toBe("SERVICE_UNAVAILABLE");
  });
});
