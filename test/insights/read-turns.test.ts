// A large insight read gives way to other work: each shard's days reach the tally in slices, each in an
// event-loop turn of its own, at most two shards' at a time, so the other reads on the insight thread take
// turns with it (docs/performance.md, Costly reads beside another account's events). Every field still
// reaches the tally exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { msgpack } from "../../src/codec/msgpack.js";
import { DAY_MS, dayOf, rollupMember, type RollupDay } from "../../src/outcomes/insight-rollup.js";
import { connectRedis, type RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { InsightStore } from "../../src/stores/insight-store.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";

const SHARDS = 4;
const DAYS = 3;
/** Groups per shard and day: 3,000 values a day hash, 9,000 a shard, more than one turn's slice. */
const GROUPS = 1500;

describe("a large insight read in turns", () => {
  let redis: PrivateRedis;
  let client: RedisClient;
  const keys = new Keys("turns");
  const first = dayOf(Date.UTC(2026, 10, 1));
  const seeded = new Set<string>();

  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = connectRedis({ kind: "standalone", url: redis.url });
    for (let shard = 0; shard < SHARDS; shard++)
      for (let d = 0; d < DAYS; d++) {
        const day = first + d * DAY_MS;
        const fields: Array<string | Buffer> = [];
        for (let g = 0; g < GROUPS; g++) {
          const field = `t:task-${shard}-${g}`;
          fields.push(field, msgpack.pack([3, "o", 1]));
          seeded.add(`${day} ${field}`);
        }
        await client.hset(keys.insightRollupDay(shard, "acct", day), ...fields);
        await client.zadd(keys.insightRollupDays(shard), day, rollupMember(day, "acct"));
      }
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.cleanup();
  });

  it("hands every field over once, in slices, two shards' at most per turn", async () => {
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const handed: string[] = [];
    const turnOfSlice: number[] = [];
    const slices: number[] = [];
    const sink = {
      hours: (): void => {},
      days: (days: readonly RollupDay[]): void => {
        turnOfSlice.push(turns);
        let values = 0;
        for (const { day, fields } of days) {
          for (let i = 0; i < fields.length; i += 2) handed.push(`${day} ${Buffer.from(fields[i]!).toString()}`);
          values += fields.length;
        }
        slices.push(values);
      },
    };
    await new InsightStore(client, keys, SHARDS, undefined).read("acct", first, first + DAYS * DAY_MS, sink);
    ticking = false;

    expect(handed.length).toBe(seeded.size);
    expect(new Set(handed)).toEqual(seeded);
    expect(Math.max(...slices)).toBeLessThanOrEqual(4000);
    expect(slices.length).toBeGreaterThanOrEqual(Math.ceil((SHARDS * DAYS * GROUPS * 2) / 4000));
    const perTurn = new Map<number, number>();
    for (const turn of turnOfSlice) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(2);
  });
});
