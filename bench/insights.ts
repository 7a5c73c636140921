// `npm run bench:insights`: how long GET /v1/insights takes for 30 days of hourly buckets over 100 tasks
// (issue 40: under 100 ms). It starts its own redis-server and `verdict serve --role ingress` through the
// built CLI, writes 30 days of dense rollups (every task has outcomes every hour, on the shards their
// outcomes would be on) in the very form the shard commit writes them (keys.insightRollup, fieldOf), and
// times the request from a client on the same machine: answers in Redis, as within VERDICT_HOT_RETENTION.
// INSIGHTS_ROUNDS (default 30) sets the timed requests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Accounts } from "../src/accounts/accounts.js";
import { fieldOf, HOUR_MS, METRIC, rollupMember } from "../src/outcomes/insight-rollup.js";
import { Keys } from "../src/redis/keys.js";
import { shardOf } from "../src/streams/shard.js";
import { median, runMain, spawnVerdict, startRedis, stopChild } from "./harness.js";

const TASKS = 100;
const DAYS = 30;
const SHARDS = 16;
const ROUNDS = Number(process.env.INSIGHTS_ROUNDS ?? 30);

/** One task's hour: 2-4 opened, most confirmed, one forced failure every third hour with its clause. */
function hourFields(task: string, hour: number, t: number): Array<[field: string, value: number | string]> {
  const opened = 2 + ((hour / HOUR_MS + t) % 3);
  const failed = (hour / HOUR_MS + t) % 3 === 0 ? 1 : 0;
  const fields: Array<[string, number | string]> = [
    [fieldOf("task", METRIC.opened, task), opened],
    [fieldOf("task", METRIC.confirmed, task), opened - failed],
    [fieldOf("task", METRIC.locked, task), opened - failed],
    [fieldOf("task", `${METRIC.histogram}4`, task), opened],
  ];
  if (failed > 0) {
    fields.push([fieldOf("task", METRIC.failed, task), 1], [fieldOf("task", METRIC.forced, task), 1]);
    fields.push([fieldOf("task", `${METRIC.clause}0000abcd.2`, task), 1], [fieldOf("task", `${METRIC.clauseText}0000abcd.2`, task), "customer_csat_set"]);
  }
  return fields;
}

async function seed(admin: import("ioredis").Redis, keys: Keys, accountId: string, from: number): Promise<number> {
  let written = 0;
  for (let day = 0; day < DAYS; day++) {
    const step = admin.pipeline();
    for (let h = 0; h < 24; h++) {
      const hour = from + (day * 24 + h) * HOUR_MS;
      for (let t = 0; t < TASKS; t++) {
        const task = `task-${t}`;
        const shard = shardOf(accountId, `${task}:${hour}`, SHARDS);
        const key = keys.insightRollup(shard, accountId, hour);
        for (const [field, value] of hourFields(task, hour, t)) {
          if (typeof value === "number") step.hincrby(key, field, value);
          else step.hset(key, field, value);
          written++;
        }
        step.zadd(keys.insightRollupHours(shard), hour, rollupMember(hour, accountId));
      }
    }
    await step.exec();
  }
  return written;
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
    const ingress = await spawnVerdict("ingress", { redisUrl: redis.url, keyPrefix, tokenSecret, dataDir: dir, extra: { VERDICT_SHARDS: String(SHARDS) } });
    const url = `http://127.0.0.1:${ingress.port}/v1/insights?group_by=task&bucket=hour&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
    const timed: number[] = [];
    let bytes = 0;
    for (let round = -5; round < ROUNDS; round++) {
      const started = performance.now();
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`GET /v1/insights: ${response.status} ${body.slice(0, 200)}`);
      const answer = JSON.parse(body) as { groups: Array<{ series: unknown[] }> };
      if (answer.groups.length !== TASKS || answer.groups[0]!.series.length !== DAYS * 24) throw new Error("the answer does not hold 100 tasks of 720 hours");
      bytes = body.length;
      if (round >= 0) timed.push(ms);
    }
    timed.sort((a, b) => a - b);
    const p90 = timed[Math.min(timed.length - 1, Math.floor(timed.length * 0.9))]!;
    console.log(`GET /v1/insights, ${TASKS} tasks x ${DAYS * 24} hourly buckets (${fields.toLocaleString("en")} rollup fields in Redis over ${SHARDS} shards), ${ROUNDS} requests one at a time:`);
    console.log(`  median ${median(timed).toFixed(1)} ms, p90 ${p90.toFixed(1)} ms, max ${timed.at(-1)!.toFixed(1)} ms; answer ${(bytes / 1e6).toFixed(2)} MB (goal < 100 ms)`);
    await stopChild(ingress.child, "SIGTERM");
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
