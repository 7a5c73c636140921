// `node dist/bench/insights-contention.js`: what one account's costly reads do to another account's events
// (issue 37). It starts its own redis-server and `verdict serve --role ingress` through the built CLI, signs
// up accounts A and B, writes 30 days of rollups for A's 1,000 tasks, then alternates two phases per round:
// B alone, sending 200 single events a second from a thread of its own, and B while A keeps
// CONTENTION_READERS (default 16) `GET /v1/insights?group_by=task&limit=1000` requests going, each reader
// starting its next as soon as the last answered (50 ms after a 429). Prints B's p50 and p99 per phase,
// A's reads answered and refused, and the ingress's CPU per phase. CONTENTION_ROUNDS (default 2),
// CONTENTION_SECONDS (default 8) per phase; CONTENTION_SLOTS sets VERDICT_QUOTA_INSIGHT_READS (default its
// default: this bench measures the limit put on tenants).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { verifyTokenSignature } from "../src/auth/token.js";
import { DEFAULT_QUOTAS, QUOTA_SETTINGS } from "../src/config/quotas.js";
import { dayOf, HOUR_MS } from "../src/outcomes/insight-rollup.js";
import { Keys } from "../src/redis/keys.js";
import { cpuSecondsOf, median, runMain, sleep, spawnVerdict, startRedis, stopChild } from "./harness.js";
import { signUpOnDashboard } from "./dashboard-sign-up.js";
import { DAYS, SHARDS, seed } from "./insight-seed.js";
import { steadyLoad, type SteadyRun } from "./tenant-load.js";

const READERS = Number(process.env.CONTENTION_READERS ?? 16);
const ROUNDS = Number(process.env.CONTENTION_ROUNDS ?? 2);
const SECONDS = Number(process.env.CONTENTION_SECONDS ?? 8);
const B_RATE = 200;

interface Reads {
  answered: number;
  refused: number;
  other: number;
}

/** A's readers, each one request at a time, until `until` (performance.now()). */
async function readInsights(base: string, token: string, until: number): Promise<Reads> {
  const reads: Reads = { answered: 0, refused: 0, other: 0 };
  const url = `${base}/v1/insights?group_by=task&bucket=day&limit=1000`;
  const reader = async (): Promise<void> => {
    while (performance.now() < until) {
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      if (response.status === 200) reads.answered++;
      else if (response.status === 429) {
        reads.refused++;
        await sleep(50);
      } else reads.other++;
    }
  };
  await Promise.all(Array.from({ length: READERS }, reader));
  return reads;
}

function line(phase: string, run: SteadyRun, cpu: number, reads?: Reads): string {
  const a = reads ? `; A's reads ${reads.answered} answered, ${reads.refused} refused 429, ${reads.other} other` : "";
  return `  ${phase}: B p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms, ${run.refused.length} of ${run.sent} refused${a}; ingress CPU ${cpu.toFixed(2)} s; load ${loadavg()[0]!.toFixed(1)}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-contention-"));
  const redis = await startRedis(dir);
  const keyPrefix = `bench-${randomBytes(3).toString("hex")}`;
  const tokenSecret = randomBytes(32).toString("base64url");
  try {
    const ingress = await spawnVerdict("ingress", {
      redisUrl: redis.url,
      keyPrefix,
      tokenSecret,
      dataDir: dir,
      extra: {
        VERDICT_SHARDS: String(SHARDS),
        [QUOTA_SETTINGS.insightReads]: process.env.CONTENTION_SLOTS ?? String(DEFAULT_QUOTAS.insightReads),
      },
    });
    const base = `http://127.0.0.1:${ingress.port}`;
    const a = await signUpOnDashboard(base, "Reader Co");
    const b = await signUpOnDashboard(base, "Sender Co");
    const accountA = verifyTokenSignature(tokenSecret, a.token)!.accountId;
    await seed(redis.admin, new Keys(keyPrefix), accountA, "task", dayOf(Date.now()) - (DAYS - 1) * 24 * HOUR_MS);
    const pid = ingress.child.pid;
    const alone: number[] = [];
    const contended: number[] = [];
    console.log(`B at ${B_RATE} events/s; A with ${READERS} readers of GET /v1/insights (1,000 tasks, ${DAYS} days):`);
    for (let round = 0; round < ROUNDS; round++) {
      let cpu = cpuSecondsOf(pid);
      const quiet = await steadyLoad({
        base,
        token: b.token,
        rate: B_RATE,
        seconds: SECONDS,
        outcomes: 50,
        round: `q${round}`,
      });
      console.log(line(`round ${round + 1}, B alone`, quiet, cpuSecondsOf(pid) - cpu));
      alone.push(quiet.p99Ms);
      cpu = cpuSecondsOf(pid);
      const [busy, reads] = await Promise.all([
        steadyLoad({ base, token: b.token, rate: B_RATE, seconds: SECONDS, outcomes: 50, round: `c${round}` }),
        readInsights(base, a.token, performance.now() + SECONDS * 1000),
      ]);
      console.log(line(`round ${round + 1}, B while A reads`, busy, cpuSecondsOf(pid) - cpu, reads));
      contended.push(busy.p99Ms);
    }
    console.log(
      `  MEDIAN B p99 alone ${median(alone).toFixed(1)} ms, while A reads ${median(contended).toFixed(1)} ms`,
    );
    await stopChild(ingress.child, "SIGTERM");
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
