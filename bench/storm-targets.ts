// The Verdict processes a storm benchmark runs against (bench/storm.ts, bench/storm-scale.ts): what `npm
// start` runs (mode serve), or an ingress and n workers on a throwaway redis-server (workers) or 3-master
// Redis Cluster (cluster), with the pids of each process kind for their CPU time.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import type { RedisClient } from "../src/redis/client.js";
import { Keys } from "../src/redis/keys.js";
import { cpuSecondsOf, freePort, sleep, startRedis, stopChild, track } from "./harness.js";
import { startRedisCluster } from "./redis-cluster.js";

export interface TargetSpec {
  mode: "serve" | "workers" | "cluster";
  /** Worker processes (modes workers and cluster). */
  workers: number;
  /** The CLI to run (dist/src/cli/main.js of this or another build). */
  cli: string;
  tokenSecret: string;
  /** More environment for every process (quotas). */
  env: Record<string, string>;
}

export interface Target {
  port: number;
  metricsPorts: number[];
  redis: RedisClient;
  /** Every master, for INFO commandstats. */
  masters: Redis[];
  pids: { worker: number[]; ingress: number[]; supervisor: number[]; redis: number[] };
  stop(): Promise<void>;
}

const NODE_FLAGS = ["--max-semi-space-size=64", ...(process.env.STORM_NODE_ARGS ?? "").split(" ").filter(Boolean)];

async function spawnServe(
  cli: string,
  tokenSecret: string,
  role: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; metricsPort: number }> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = track(
    spawn(process.execPath, [...NODE_FLAGS, cli, "serve", "--role", role], {
      env: {
        ...process.env,
        VERDICT_TOKEN_SECRET: tokenSecret,
        VERDICT_LOG_LEVEL: "warn",
        VERDICT_PORT: String(port),
        VERDICT_METRICS_PORT: String(metricsPort),
        ...env,
      },
      stdio: ["ignore", "ignore", "inherit"],
    }),
  );
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve --role ${role} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`serve --role ${role} not ready within 240 s`);
    await sleep(100);
  }
  return { child, port, metricsPort };
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function roleOf(pid: number): string | undefined {
  try {
    return /(?:^|\0)VERDICT_ROLE=(\w+)/.exec(readFileSync(`/proc/${pid}/environ`, "utf8"))?.[1];
  } catch {
    return undefined;
  }
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** What `npm start` runs: role all with the embedded Redis and archive in a fresh data dir. */
async function serveTarget(dir: string, spec: TargetSpec): Promise<Target> {
  const dataDir = join(dir, "data");
  const serve = await spawnServe(spec.cli, spec.tokenSecret, "all", { ...spec.env, VERDICT_DATA_DIR: dataDir });
  const pids: Target["pids"] = { worker: [], ingress: [], supervisor: [serve.child.pid!], redis: [] };
  for (const pid of childrenOf(serve.child.pid!)) {
    const role = roleOf(pid);
    if (role === "ingress" || role === "worker") pids[role].push(pid);
    else if (commOf(pid).startsWith("redis-server")) pids.redis.push(pid);
    else pids.supervisor.push(pid);
  }
  const redis = new Redis({ path: join(dataDir, "redis.sock") });
  const settledAfter = await stableLeases(redis, new Keys(DEFAULT_OPTIONS.keyPrefix), pids.worker.length);
  console.error(`shard leases stable after ${(settledAfter / 1000).toFixed(1)} s`);
  return {
    port: serve.port,
    metricsPorts: [serve.metricsPort],
    redis,
    masters: [redis],
    pids,
    stop: async () => {
      redis.disconnect();
      await stopChild(serve.child, "SIGTERM", 30_000);
    },
  };
}

/** An ingress and WORKERS workers on a throwaway redis-server, or with `cluster` a 3-master cluster. */
async function workersTarget(dir: string, spec: TargetSpec): Promise<Target> {
  const redis = spec.mode === "cluster" ? await startRedisCluster(dir) : await startRedis(dir);
  const env: Record<string, string> = {
    ...spec.env,
    VERDICT_DATA_DIR: join(dir, "data"),
    ...("url" in redis ? { REDIS_URL: redis.url } : { REDIS_CLUSTER_NODES: redis.nodesSetting }),
  };
  const ingress = await spawnServe(spec.cli, spec.tokenSecret, "ingress", env);
  const workers: { child: ChildProcess; port: number; metricsPort: number }[] = [];
  for (let i = 0; i < spec.workers; i++) workers.push(await spawnServe(spec.cli, spec.tokenSecret, "worker", env));
  // Every worker owns its shards, and they have stopped moving, before the storm is set up: a shard that
  // moves during it has its commits built and refused, which would count against the workers' CPU.
  const keys = new Keys(DEFAULT_OPTIONS.keyPrefix);
  const settledAfter = await stableLeases(redis.admin, keys, spec.workers);
  console.error(`shard leases stable after ${(settledAfter / 1000).toFixed(1)} s`);
  const servers = "child" in redis ? [redis.child] : redis.children;
  return {
    port: ingress.port,
    metricsPorts: workers.map((w) => w.metricsPort),
    redis: redis.admin,
    masters: "url" in redis ? [redis.admin] : redis.admin.nodes("master"),
    pids: {
      worker: workers.map((w) => w.child.pid!),
      ingress: [ingress.child.pid!],
      supervisor: [],
      redis: servers.map((child) => child.pid!),
    },
    stop: async () => {
      await Promise.all([ingress, ...workers].map((p) => stopChild(p.child, "SIGTERM")));
      await redis.stop();
    },
  };
}

/** How long the shard leases must stay put (every shard leased, no holder changed) to count as stable. */
const STABLE_MS = 5000;

/**
 * Waits until every shard is leased, by `workers` distinct workers, with no lease changing hands for
 * STABLE_MS; returns how long that took. A lease renewed by its holder keeps its value (worker and fence
 * token), so a changed value is a move.
 */
export async function stableLeases(
  redis: RedisClient,
  keys: Keys,
  workers: number,
  timeoutMs = 180_000,
): Promise<number> {
  const started = Date.now();
  let last = "";
  let sameSince = Date.now();
  for (;;) {
    const values = await Promise.all(
      Array.from({ length: DEFAULT_OPTIONS.shards }, (_, shard) => redis.get(keys.lease(shard))),
    );
    const now = Date.now();
    const joined = values.join(",");
    if (joined !== last) [last, sameSince] = [joined, now];
    const holders = new Set(values.map((value) => value?.slice(0, value.lastIndexOf(":"))));
    if (values.every((value) => value !== null) && holders.size === workers && now - sameSince >= STABLE_MS)
      return now - started;
    if (now - started > timeoutMs) throw new Error(`shard leases not stable within ${timeoutMs / 1000} s: ${joined}`);
    await sleep(250);
  }
}

/** Members of every shard's due-time index scored at or before `at`. */
export async function dueBy(redis: RedisClient, keys: Keys, at: number): Promise<number> {
  const counts = await Promise.all(
    Array.from({ length: DEFAULT_OPTIONS.shards }, (_, shard) => redis.zcount(keys.due(shard), "-inf", at)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

export function stormMode(name: string): TargetSpec["mode"] {
  if (name === "serve" || name === "workers" || name === "cluster") return name;
  throw new Error(`STORM_MODE must be serve, workers or cluster (got ${JSON.stringify(name)})`);
}

export function startTarget(dir: string, spec: TargetSpec): Promise<Target> {
  return spec.mode === "serve" ? serveTarget(dir, spec) : workersTarget(dir, spec);
}

export const cpuOf = (pids: number[]): number => pids.reduce((total, pid) => total + cpuSecondsOf(pid), 0);
