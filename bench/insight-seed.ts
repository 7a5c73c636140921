// A large fleet's 30 days of insight rollups, written straight into Redis in the form the shard commit leaves
// them (rollup.lua): 1,000 groups of a dimension, a few hours a day each. Shared by the benches that read them
// back (the dashboard's overview, one account's reads beside another's events).
import type { Redis } from "ioredis";
import { msgpack } from "../src/codec/msgpack.js";
import {
  dayOf,
  groupFieldOf,
  HOUR_MS,
  hourOfDay,
  METRIC,
  rollupMember,
  type InsightDimension,
} from "../src/outcomes/insight-rollup.js";
import type { Keys } from "../src/redis/keys.js";
import { shardOf } from "../src/streams/shard.js";

export const GROUPS = 1000;
export const DAYS = 31;
export const SHARDS = 16;
/** Hours of each day a group has outcomes in. */
const HOURS = [3, 9, 14, 20];

/** One group's hour: 1-3 opened, confirmed but one failure in three, charges for a customer. */
function hourCounts(dimension: InsightDimension, hour: number, g: number): Record<string, number> {
  const opened = 1 + ((hour / HOUR_MS + g) % 3);
  const failed = (hour / HOUR_MS + g) % 3 === 0 ? 1 : 0;
  if (dimension === "customer")
    return { [`${METRIC.chargeCount}EUR`]: opened, [`${METRIC.chargeAmount}EUR`]: 250 * opened };
  return {
    [METRIC.opened]: opened,
    [METRIC.confirmed]: opened - failed,
    [METRIC.failed]: failed,
    [METRIC.locked]: opened,
    [`${METRIC.histogram}${3 + (g % 4)}`]: opened,
  };
}

/** The days' hashes for one dimension, as rollup.lua leaves them; returns how many counts. */
export async function seed(
  admin: Redis,
  keys: Keys,
  accountId: string,
  dimension: InsightDimension,
  from: number,
): Promise<number> {
  let counts = 0;
  const hashes = new Map<string, { shard: number; day: number; groups: Map<string, Array<number | string>> }>();
  for (let day = from; day < from + DAYS * 24 * HOUR_MS; day += 24 * HOUR_MS) {
    for (let g = 0; g < GROUPS; g++) {
      for (const h of HOURS) {
        const hour = day + h * HOUR_MS;
        const key = `${dimension}-${g}`;
        const shard = shardOf(accountId, `${key}:${hour}`, SHARDS);
        const hashKey = keys.insightRollupDay(shard, accountId, dayOf(hour));
        let hash = hashes.get(hashKey);
        if (!hash) hashes.set(hashKey, (hash = { shard, day: dayOf(hour), groups: new Map() }));
        const field = groupFieldOf(dimension, key);
        let cells = hash.groups.get(field);
        if (!cells) hash.groups.set(field, (cells = []));
        for (const [metric, count] of Object.entries(hourCounts(dimension, hour, g))) {
          cells.push(hourOfDay(hour), metric, count);
          counts++;
        }
      }
    }
  }
  for (const [key, { shard, day, groups }] of hashes) {
    const step = admin.pipeline();
    for (const [field, cells] of groups) step.hset(key, field, msgpack.pack(cells));
    step.zadd(keys.insightRollupDays(shard), day, rollupMember(day, accountId));
    await step.exec();
  }
  return counts;
}
