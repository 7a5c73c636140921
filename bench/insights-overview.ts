// `node dist/bench/insights-overview.js`: how long the dashboard's home page takes to render its last 30 days
// for a large fleet (issue 40). It starts its own redis-server and `verdict serve --role ingress` through the
// built CLI, signs an account up on the dashboard, writes 30 days of rollups for 1,000 tasks, 1,000 agents and
// 1,000 customers (a few hours a day each, charges for the customers) in the form the shard commit writes
// them, and times GET /dashboard/ one at a time: the page asks GET /v1/insights three times over the
// in-process transport (limit 1000, day buckets) and draws its charts. OVERVIEW_ROUNDS (default 15) sets the
// timed requests.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { verifyTokenSignature } from "../src/auth/token.js";
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
import { Keys } from "../src/redis/keys.js";
import { shardOf } from "../src/streams/shard.js";
import { cpuSecondsOf, median, runMain, spawnVerdict, startRedis, stopChild } from "./harness.js";
import { signUpOnDashboard } from "./dashboard-sign-up.js";

const GROUPS = 1000;
const DAYS = 31;
const SHARDS = 16;
/** Hours of each day a group has outcomes in. */
const HOURS = [3, 9, 14, 20];
const ROUNDS = Number(process.env.OVERVIEW_ROUNDS ?? 15);

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
async function seed(
  admin: import("ioredis").Redis,
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

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-overview-"));
  const redis = await startRedis(dir);
  const keyPrefix = `bench-${randomBytes(3).toString("hex")}`;
  const tokenSecret = randomBytes(32).toString("base64url");
  const keys = new Keys(keyPrefix);
  try {
    const ingress = await spawnVerdict("ingress", {
      redisUrl: redis.url,
      keyPrefix,
      tokenSecret,
      dataDir: dir,
      extra: { VERDICT_SHARDS: String(SHARDS) },
    });
    const base = `http://127.0.0.1:${ingress.port}`;
    const { cookie, token } = await signUpOnDashboard(base, "Overview Co");
    const accountId = verifyTokenSignature(tokenSecret, token)!.accountId;
    const from = dayOf(Date.now()) - (DAYS - 1) * 24 * HOUR_MS;
    let counts = 0;
    for (const dimension of ["task", "agent", "customer"] as const)
      counts += await seed(redis.admin, keys, accountId, dimension, from);
    const timed: number[] = [];
    let bytes = 0;
    let cpu = 0;
    for (let round = -3; round < ROUNDS; round++) {
      if (round === 0) cpu = -cpuSecondsOf(ingress.child.pid);
      const started = performance.now();
      const response = await fetch(`${base}/dashboard/`, { headers: { cookie } });
      const page = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200 || !page.includes('id="overview-outcomes"'))
        throw new Error(`GET /dashboard/: ${response.status} without the overview's charts`);
      bytes = page.length;
      if (round >= 0) timed.push(ms);
    }
    cpu += cpuSecondsOf(ingress.child.pid);
    timed.sort((a, b) => a - b);
    const p90 = timed[Math.min(timed.length - 1, Math.floor(timed.length * 0.9))]!;
    console.log(
      `GET /dashboard/ (the overview), ${GROUPS} tasks, ${GROUPS} agents and ${GROUPS} customers over ${DAYS} days (${counts.toLocaleString("en")} counts in Redis), ${ROUNDS} requests one at a time:`,
    );
    console.log(
      `  MEDIAN ${median(timed).toFixed(1)} ms, p90 ${p90.toFixed(1)} ms; page ${(bytes / 1e3).toFixed(0)} KB; ingress CPU per request ${((cpu / ROUNDS) * 1000).toFixed(1)} ms; load average ${loadavg()[0]!.toFixed(1)}`,
    );
    await stopChild(ingress.child, "SIGTERM");
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
