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
import { dayOf, HOUR_MS } from "../src/outcomes/insight-rollup.js";
import { Keys } from "../src/redis/keys.js";
import { cpuSecondsOf, median, runMain, spawnVerdict, startRedis, stopChild } from "./harness.js";
import { signUpOnDashboard } from "./dashboard-sign-up.js";
import { DAYS, GROUPS, SHARDS, seed } from "./insight-seed.js";

const ROUNDS = Number(process.env.OVERVIEW_ROUNDS ?? 15);

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
