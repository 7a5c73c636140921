// What the Node benchmarks share: free ports, throwaway redis-server processes, child processes (the load
// generator, the prober, peers, Verdict through its built CLI), and small HTTP and /metrics helpers.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { QUOTA_SETTINGS, type QuotaOptions } from "../src/config/quotas.js";
import { freePort } from "./free-port.js";
import type { LoadResult, LoadSpec } from "./load.js";
import { startRedisServer } from "./loopback-redis.js";

/** Quotas no bench reaches: a bench measures one account at full speed, not the limits put on tenants. */
export const BENCH_QUOTAS: QuotaOptions = {
  tasks: 1_000_000,
  agents: 1_000_000,
  customers: 1_000_000,
  rateCards: 1_000_000,
  webhookEndpoints: 1_000_000,
  openOutcomes: 1_000_000_000,
  eventsPerSecond: 1_000_000_000,
  eventBurst: 1_000_000_000,
  insightReads: 1_000_000,
};

/** BENCH_QUOTAS as the environment of a spawned process. */
const BENCH_QUOTA_ENV = Object.fromEntries(
  (Object.keys(QUOTA_SETTINGS) as (keyof QuotaOptions)[]).map((name) => [
    QUOTA_SETTINGS[name],
    String(BENCH_QUOTAS[name]),
  ]),
);

export type { LoadResult, LoadSpec } from "./load.js";
export { freePort };

/** The clock load.ts and probe.ts report on, comparable across processes of this machine. */
export const now = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
/** The Node flags `npm start` (and the Dockerfile) run the service with, read from package.json's start script. */
const SERVE_NODE_FLAGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  return /\bnode ((?:--\S+ )*)\S+ serve$/.exec(pkg.scripts.start)?.[1]?.trim().split(" ").filter(Boolean) ?? [];
})();

export function benchScript(name: string): string {
  return fileURLToPath(new URL(`./${name}.js`, import.meta.url));
}

/** Children still running when the benchmark ends (or fails) are killed, so nothing is left behind. */
const children = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

export function killAll(): void {
  for (const child of children) child.kill("SIGKILL");
}

/**
 * Runs a benchmark's main and exits: 0 when it resolved; 1 when it threw, or a promise it left behind failed,
 * after killing its children (left running, they would take the machine's cores from the next run).
 */
export function runMain(main: () => Promise<void>): void {
  const fail = (error: unknown): void => {
    console.error(error);
    killAll();
    process.exit(1);
  };
  process.once("uncaughtException", fail);
  process.once("unhandledRejection", fail);
  main().then(() => process.exit(0), fail);
}

/** Signals one child and waits until it is gone (SIGKILL after `graceMs` if another signal did not end it). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL", graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = signal === "SIGKILL" ? undefined : setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

export interface BenchRedis {
  port: number;
  url: string;
  child: ChildProcess;
  /** An admin connection (INFO, FLUSHALL, lease look-ups). */
  admin: Redis;
  stop(): Promise<void>;
}

export function redisVersion(): string {
  const out = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (out.error) throw new Error("redis-server is not on PATH (sudo apt-get install redis-server)");
  return /v=(\S+)/.exec(out.stdout)?.[1] ?? out.stdout.trim();
}

/** A throwaway redis-server on a free port (never 6379): no persistence, noeviction as Verdict requires. */
export async function startRedis(dir: string): Promise<BenchRedis> {
  redisVersion();
  const { port, child } = await startRedisServer(dir);
  track(child);
  const admin = new Redis({ port, host: "127.0.0.1" });
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    child,
    admin,
    stop: async () => {
      if (process.env.BENCH_REDIS_STATS) console.error(await admin.info("commandstats"));
      admin.disconnect();
      await stopChild(child);
    },
  };
}

/** Runs a bench script (dist/bench/NAME.js) in a child process and returns the JSON it prints. */
export function runJsonChild<T>(name: string, arg: unknown, nodeArgs: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, [...nodeArgs, benchScript(name), JSON.stringify(arg)], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    let out = "";
    child.stdout?.on("data", (data: Buffer) => (out += data.toString()));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${name} exited with ${code}`));
      try {
        resolve(JSON.parse(out) as T);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

let bodiesFiles = 0;

/** The load generator (bench/load.ts) in a child process, driving `bodies` at `path`. */
export function load(
  dir: string,
  spec: Omit<LoadSpec, "bodiesFile" | "seconds" | "warmupSeconds"> & {
    bodies: string[];
    seconds?: number;
    warmupSeconds?: number;
  },
): Promise<LoadResult> {
  const bodiesFile = join(dir, `bodies-${bodiesFiles++}.json`);
  writeFileSync(bodiesFile, JSON.stringify(spec.bodies));
  const full: LoadSpec = { seconds: 0, warmupSeconds: 0, ...spec, bodiesFile };
  delete (full as Partial<typeof spec>).bodies;
  return runJsonChild<LoadResult>("load", full);
}

export const rate = (r: LoadResult): number => (r.seconds > 0 ? r.requests / r.seconds : 0);

/**
 * Measures every item once per round, `rounds` times, each round in a rotated order, so a slow spell of
 * this shared host falls on all of them alike; returns each item's results in item order.
 */
export async function rotatingRounds<T, R>(
  items: readonly T[],
  rounds: number,
  measure: (item: T) => Promise<R>,
): Promise<R[][]> {
  const results = items.map((): R[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < items.length; i++) {
      const at = (round + i) % items.length;
      results[at]!.push(await measure(items[at]!));
    }
  }
  return results;
}

/** The median of some figures (the upper one of the middle two for an even count). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** The round whose rate is the median of the rounds (its latencies go with it). */
export function medianRound(rounds: LoadResult[]): LoadResult {
  return [...rounds].sort((a, b) => rate(a) - rate(b))[Math.floor(rounds.length / 2)]!;
}

/** Starts a long-running bench script and waits for the first JSON line it prints (its ports). */
export function startServerChild<T>(
  name: string,
  arg: unknown,
  nodeArgs: string[] = [],
  ipc = false,
): Promise<{ child: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, [...nodeArgs, benchScript(name), JSON.stringify(arg)], {
        stdio: ipc ? ["ignore", "pipe", "inherit", "ipc"] : ["ignore", "pipe", "inherit"],
      }),
    );
    let out = "";
    const onData = (data: Buffer): void => {
      out += data.toString();
      const line = out.indexOf("\n");
      if (line < 0) return;
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      resolve({ child, info: JSON.parse(out.slice(0, line)) as T });
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
}

export interface VerdictProcess {
  child: ChildProcess;
  port: number;
  metricsPort: number;
}

/** Env that points the built CLI at a benchmark Redis. */
export interface VerdictEnv {
  redisUrl: string;
  keyPrefix: string;
  tokenSecret: string;
  dataDir: string;
  extra?: Record<string, string>;
}

/** `verdict serve --role ROLE` through the built CLI with npm start's Node flags, as in production; resolves once /readyz is 200. */
export async function spawnVerdict(
  role: "ingress" | "worker" | "all",
  env: VerdictEnv,
  nodeArgs: string[] = [],
  pinCpus?: string,
): Promise<VerdictProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const argv = [...SERVE_NODE_FLAGS, ...nodeArgs, CLI, "serve", "--role", role];
  // taskset execs node in place, so the pid is node's, and the children of role all inherit the CPU set.
  const [command, args] =
    pinCpus === undefined ? [process.execPath, argv] : ["taskset", ["-c", pinCpus, process.execPath, ...argv]];
  const child = track(
    spawn(command, args, {
      env: {
        ...process.env,
        REDIS_URL: env.redisUrl,
        VERDICT_KEY_PREFIX: env.keyPrefix,
        VERDICT_TOKEN_SECRET: env.tokenSecret,
        VERDICT_DATA_DIR: env.dataDir,
        VERDICT_LOG_LEVEL: "warn",
        VERDICT_PORT: String(port),
        VERDICT_METRICS_PORT: String(metricsPort),
        ...BENCH_QUOTA_ENV,
        ...env.extra,
      },
      // BENCH_DEBUG: show the processes' logs (warnings and worse; pino writes to stdout).
      stdio: ["ignore", process.env.BENCH_DEBUG ? "inherit" : "ignore", "inherit"],
    }),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdict ${role} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`verdict ${role} not ready within 30 s`);
    await sleep(50);
  }
  return { child, port, metricsPort };
}

/** A process's /metrics text. */
async function scrape(metricsPort: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
}

/** One sample of a Prometheus metric from a /metrics port, e.g. `verdict_verdicts_total{status="CONFIRMED"}`; 0 when absent. */
export async function metric(metricsPort: number, sample: string): Promise<number> {
  const text = await scrape(metricsPort);
  const escaped = sample.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`^${escaped} (\\S+)$`, "m").exec(text);
  return match ? Number(match[1]) : 0;
}

/** Events a `serve` (role all) process's ingress accepted, and its workers applied, so far. */
export async function serveCounts(metricsPort: number): Promise<{ accepted: number; processed: number }> {
  const [accepted, processed] = await Promise.all([
    metric(metricsPort, 'verdict_events_total{result="accepted",role="ingress"}'),
    metric(metricsPort, 'verdict_events_processed_total{role="worker"}'),
  ]);
  return { accepted, processed };
}

/**
 * Resolves once the workers of a `serve` (role all) process have applied every event its ingress accepted so
 * far: a run that starts before then shares the machine with the previous run's backlog.
 */
export async function serveDrained(metricsPort: number, timeoutMs = 300_000): Promise<void> {
  const { accepted } = await serveCounts(metricsPort);
  await waitUntil(async () => (await serveCounts(metricsPort)).processed, accepted, timeoutMs, 50);
}

/** The sum of every sample of a metric (whatever its labels, or those whose labels include `label`) on a process's metrics port. */
export async function metricSum(metricsPort: number, name: string, label?: string): Promise<number> {
  const text = await scrape(metricsPort);
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, "gm")))
    if (label === undefined || match[1]?.includes(label)) sum += Number(match[2]);
  return sum;
}

/** A histogram's cumulative bucket counts by upper bound (`le`, +Inf last) on a process's metrics port. */
export async function histogramBuckets(metricsPort: number, name: string): Promise<[number, number][]> {
  const text = await scrape(metricsPort);
  const buckets: [number, number][] = [];
  for (const match of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, "gm"))) {
    buckets.push([match[1] === "+Inf" ? Infinity : Number(match[1]), Number(match[2])]);
  }
  return buckets;
}

/** The bucket bound under which the `q` quantile of the observations made between two readings lies. */
export function bucketQuantile(before: [number, number][], after: [number, number][], q: number): number | undefined {
  const counts = after.map(([le, n], i) => [le, n - (before[i]?.[1] ?? 0)] as const);
  const total = counts[counts.length - 1]?.[1] ?? 0;
  if (total === 0) return undefined;
  return counts.find(([, n]) => n >= q * total)?.[0];
}

/** Polls until `read()` reaches `target`; resolves with the time it did (on `now()`), or throws after `timeoutMs`. */
export async function waitUntil(
  read: () => Promise<number>,
  target: number,
  timeoutMs: number,
  everyMs = 20,
): Promise<number> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value >= target) return now();
    if (now() > deadline) throw new Error(`timed out at ${value} of ${target}`);
    await sleep(everyMs);
  }
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** One API request with a bearer token (setup and polling; not on any measured hot path but the storm's list polls). */
export async function api(
  port: number,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

export async function apiOk(
  port: number,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const answer = await api(port, token, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Resident set size of a process from /proc (bytes). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Single-event bodies of the ingest runs: Variant A and B alternating over 1,000 keys. */
export function singleBodies(): string[] {
  return Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify(
      i % 2 === 0
        ? { outcome_key: `order-${i}`, action: "payment_captured", properties: { value: i, currency: "EUR" } }
        : {
            key: `ticket-${i}`,
            customer_key: "cust-42",
            agent_key: "support-bot",
            action: "agent_response",
            properties: { value: i },
          },
    ),
  );
}

/** 500-event batch bodies of the ingest runs (Variant B, 100 keys per batch). */
export function batchBodies(): string[] {
  return Array.from({ length: 20 }, (_, b) =>
    JSON.stringify({
      events: Array.from({ length: 500 }, (_, i) => ({
        key: `ticket-${b}-${i % 100}`,
        customer_key: "cust-42",
        action: "agent_response",
        properties: { value: i },
      })),
    }),
  );
}

/**
 * CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat; with `thread`,
 * that thread's alone (/proc/<pid>/task/<thread>/stat; the main thread's id is the pid).
 */
export function cpuSecondsOf(pid: number | undefined, thread?: number): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * The processes of a `serve` with role all, by role: the supervisor and the children it forked, each of
 * which carries its role in its environment (VERDICT_ROLE, set by the supervisor).
 */
export function servePids(supervisorPid: number): { supervisor: number; ingress: number[]; worker: number[] } {
  const pids = { supervisor: supervisorPid, ingress: [] as number[], worker: [] as number[] };
  const children = readFileSync(`/proc/${supervisorPid}/task/${supervisorPid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  for (const pid of children) {
    const role = /(?:^|\0)VERDICT_ROLE=(\w+)/.exec(readFileSync(`/proc/${pid}/environ`, "utf8"))?.[1];
    if (role === "ingress" || role === "worker") pids[role].push(pid);
  }
  return pids;
}

/** CPU seconds used so far by some processes together (see cpuSecondsOf). */
export const cpuSecondsOfAll = (pids: readonly number[]): number =>
  pids.reduce((total, pid) => total + cpuSecondsOf(pid), 0);

/**
 * CPU time (user + system) used so far by every process of this machine named `comm` (say, "postgres": its
 * server, background workers and each connection's backend), in seconds. A process that ended meanwhile
 * drops out: measure across a window in which the processes that matter live.
 */
export function cpuSecondsOfCommand(comm: string): number {
  let seconds = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === comm) seconds += cpuSecondsOf(Number(pid));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return seconds;
}

/** CPU seconds the hypervisor gave this machine's cores to other guests so far (steal, from /proc/stat). */
export function stealSeconds(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (cpu[7] ?? 0) / 100;
}

/** CPU time the whole machine spent busy (all cores, not idle or iowait), in seconds, from /proc/stat. */
export function machineBusySeconds(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return (user + nice + system + irq + softirq + steal) / 100;
}
