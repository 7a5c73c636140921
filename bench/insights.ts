// `npm run bench:insights`: how long GET /v1/insights takes for 30 days of hourly buckets over 100 tasks
// (issue 40: under 100 ms). It starts its own redis-server and `verdict serve --role ingress` through the
// built CLI, writes 30 days of dense rollups (every task has outcomes every hour, on the shards their
// outcomes would be on) in the very form the shard commit writes them (keys.insightRollupDay, groupFieldOf), and
// times the request from a client on the same machine: answers in Redis, as within VERDICT_HOT_RETENTION.
// INSIGHTS_ROUNDS (default 30) sets the timed requests.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Accounts } from "../src/accounts/accounts.js";
import { msgpack } from "../src/codec/msgpack.js";
import {
  dayOf,
  groupFieldOf,
  HOUR_MS,
  hourOfDay,
  METRIC,
  rollupMember,
  TEXTS_HOUR,
} from "../src/outcomes/insight-rollup.js";
import { bucketStarts } from "../src/api/insight-buckets.js";
import { insightsJson } from "../src/api/insight-json.js";
import { InsightTally } from "../src/api/insight-series.js";
import { connectRedis } from "../src/redis/client.js";
import { Keys } from "../src/redis/keys.js";
import { InsightStore } from "../src/stores/insight-store.js";
import { shardOf } from "../src/streams/shard.js";
import { cpuSecondsOf, median, runMain, spawnVerdict, startRedis, stopChild } from "./harness.js";

const TASKS = 100;
const DAYS = 30;
const SHARDS = 16;
const ROUNDS = Number(process.env.INSIGHTS_ROUNDS ?? 30);
/** Issue 40's bound on the answer's time. */
const GOAL_MS = 100;

/** One task's hour: 2-4 opened, most confirmed, one forced failure every third hour with its clause. */
function hourCounts(hour: number, t: number): Record<string, number> {
  const opened = 2 + ((hour / HOUR_MS + t) % 3);
  const failed = (hour / HOUR_MS + t) % 3 === 0 ? 1 : 0;
  const counts: Record<string, number> = {
    [METRIC.opened]: opened,
    [METRIC.confirmed]: opened - failed,
    [METRIC.locked]: opened - failed,
    [`${METRIC.histogram}4`]: opened,
  };
  if (failed > 0) Object.assign(counts, { [METRIC.failed]: 1, [METRIC.forced]: 1, [`${METRIC.clause}0000abcd.2`]: 1 });
  return counts;
}

/** Writes the days' hashes as rollup.lua leaves them: per shard and UTC day, one field per task holding its hours' triples. */
async function seed(admin: import("ioredis").Redis, keys: Keys, accountId: string, from: number): Promise<number> {
  let counts = 0;
  const hashes = new Map<string, { shard: number; day: number; groups: Map<string, Array<number | string>> }>();
  for (let hour = from; hour < from + DAYS * 24 * HOUR_MS; hour += HOUR_MS) {
    for (let t = 0; t < TASKS; t++) {
      const task = `task-${t}`;
      const shard = shardOf(accountId, `${task}:${hour}`, SHARDS);
      const key = keys.insightRollupDay(shard, accountId, dayOf(hour));
      let hash = hashes.get(key);
      if (!hash) hashes.set(key, (hash = { shard, day: dayOf(hour), groups: new Map() }));
      const field = groupFieldOf("task", task);
      let cells = hash.groups.get(field);
      if (!cells) hash.groups.set(field, (cells = []));
      const hourCount = hourCounts(hour, t);
      for (const [metric, count] of Object.entries(hourCount)) cells.push(hourOfDay(hour), metric, count);
      counts += Object.keys(hourCount).length;
      if (hourCount[METRIC.failed] && !cells.includes(`${METRIC.clauseText}0000abcd.2`))
        cells.push(TEXTS_HOUR, `${METRIC.clauseText}0000abcd.2`, "customer_csat_set");
    }
  }
  const step = admin.pipeline();
  for (const [key, { shard, day, groups }] of hashes) {
    for (const [field, cells] of groups) step.hset(key, field, msgpack.pack(cells));
    step.zadd(keys.insightRollupDays(shard), day, rollupMember(day, accountId));
  }
  await step.exec();
  return counts;
}

/** Redis's CPU so far (user + system, seconds), from INFO. */
async function redisCpuSeconds(admin: import("ioredis").Redis): Promise<number> {
  const info = await admin.info("cpu");
  const field = (name: string): number => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return field("used_cpu_user") + field("used_cpu_sys");
}

/**
 * Where a request's time goes, in this process (medians of 5): the store's read with the sums it feeds as
 * each shard's reply arrives, the ranking, and the answer's JSON.
 */
async function split(url: string, keys: Keys, accountId: string, from: number, to: number): Promise<void> {
  const client = connectRedis({ kind: "standalone", url });
  const store = new InsightStore(client, keys, SHARDS, undefined);
  const range = bucketStarts("hour", from, to, "UTC")!;
  const times = { read: [] as number[], sums: [] as number[], json: [] as number[] };
  try {
    for (let round = -2; round < 5; round++) {
      const t0 = performance.now();
      const tally = new InsightTally("task", undefined, range);
      await store.read(accountId, from, to, tally);
      const t1 = performance.now();
      const { groups, total } = tally.result(TASKS);
      const t2 = performance.now();
      insightsJson({ bucket: "hour", from: "", to: "", tz: "UTC", groups_total: total }, groups, range.starts);
      const t3 = performance.now();
      if (round < 0) continue;
      times.read.push(t1 - t0);
      times.sums.push(t2 - t1);
      times.json.push(t3 - t2);
    }
  } finally {
    client.disconnect();
  }
  console.log(
    `  in one process: store read and sums ${median(times.read).toFixed(1)} ms, ranking ${median(times.sums).toFixed(1)} ms, JSON ${median(times.json).toFixed(1)} ms; load average ${loadavg()[0]!.toFixed(1)}`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-insights-"));
  const redis = await startRedis(dir);
  const keyPrefix = `bench-${randomBytes(3).toString("hex")}`;
  const tokenSecret = randomBytes(32).toString("base64url");
  const keys = new Keys(keyPrefix);
  try {
    const { token, account_id: accountId } = await new Accounts(redis.admin, keys, tokenSecret).create("bench");
    const to = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const from = to - DAYS * 24 * HOUR_MS;
    const fields = await seed(redis.admin, keys, accountId, from);
    const ingress = await spawnVerdict("ingress", {
      redisUrl: redis.url,
      keyPrefix,
      tokenSecret,
      dataDir: dir,
      extra: { VERDICT_SHARDS: String(SHARDS) },
    });
    const url = `http://127.0.0.1:${ingress.port}/v1/insights?group_by=task&bucket=hour&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
    const timed: number[] = [];
    let bytes = 0;
    const cpu = { ingress: 0, redis: 0 };
    for (let round = -5; round < ROUNDS; round++) {
      if (round === 0) cpu.ingress = -cpuSecondsOf(ingress.child.pid);
      if (round === 0) cpu.redis = -(await redisCpuSeconds(redis.admin));
      const started = performance.now();
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`GET /v1/insights: ${response.status} ${body.slice(0, 200)}`);
      const answer = JSON.parse(body) as { groups: Array<{ series: unknown[] }> };
      if (answer.groups.length !== TASKS || answer.groups[0]!.series.length !== DAYS * 24)
        throw new Error("the answer does not hold 100 tasks of 720 hours");
      bytes = body.length;
      if (round >= 0) timed.push(ms);
    }
    cpu.ingress += cpuSecondsOf(ingress.child.pid);
    cpu.redis += await redisCpuSeconds(redis.admin);
    timed.sort((a, b) => a - b);
    const p90 = timed[Math.min(timed.length - 1, Math.floor(timed.length * 0.9))]!;
    console.log(
      `GET /v1/insights, ${TASKS} tasks x ${DAYS * 24} hourly buckets (${fields.toLocaleString("en")} counts in Redis over ${SHARDS} shards), ${ROUNDS} requests one at a time:`,
    );
    console.log(
      `  MEDIAN ${median(timed).toFixed(1)} ms, p90 ${p90.toFixed(1)} ms, max ${timed.at(-1)!.toFixed(1)} ms; answer ${(bytes / 1e6).toFixed(2)} MB; load average ${loadavg()[0]!.toFixed(1)}`,
    );
    console.log(
      `  CPU per request: ingress ${((cpu.ingress / ROUNDS) * 1000).toFixed(1)} ms, Redis ${((cpu.redis / ROUNDS) * 1000).toFixed(1)} ms`,
    );
    const bound = (ms: number): string => `${ms.toFixed(1)} ms ${ms < GOAL_MS ? "met" : "NOT met"}`;
    console.log(`  goal < ${GOAL_MS} ms: median ${bound(median(timed))}, p90 ${bound(p90)}`);
    await stopChild(ingress.child, "SIGTERM");
    await split(redis.url, keys, accountId, from, to);
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
