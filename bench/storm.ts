// The deadline storm (`npm run bench:storm`, also row 6 of `npm run bench`): STORM_OUTCOMES (default
// 100,000) outcomes of one task opened with the same `settles_at` (condition `NOT storm_cancelled`, so each
// is CONFIRMED at the deadline), then the time from that deadline until every one was forced, polled from
// the shards' due-time indexes in Redis every 10 ms and checked against the workers' verdict counters.
// Meanwhile single events go to other outcomes at 200/s and their p99 is the ingest stall, if any.
// Before it, as on a service that has been running, every shard commits once and a small storm of 2,000
// is forced: the figures are then the storm's own, not each process's first commit and compilation.
//
// STORM_MODE=serve (the default) runs what `npm start` runs: `serve` with role all, its embedded Redis and
// embedded archive in a fresh data dir. STORM_MODE=workers runs `serve --role ingress` and STORM_WORKERS
// (default 1) `--role worker` processes on a throwaway redis-server; STORM_MODE=cluster the same on a
// throwaway 3-master Redis Cluster (REDIS_CLUSTER_NODES). STORM_CLI runs another build's CLI
// (dist/src/cli/main.js of a `git worktree` of an older commit) for a before/after in one sitting.
// Prints the deadline and the Redis pids ahead of the deadline (to attach a profiler), then one line of figures,
// then the same as JSON on the last line.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { Accounts } from "../src/accounts/accounts.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { Keys } from "../src/redis/keys.js";
import { apiOk, load, metricSum, now, runMain, sleep } from "./harness.js";
import { cpuOf, dueBy, startTarget, stormMode, type Target } from "./storm-targets.js";

const OUTCOMES = Number(process.env.STORM_OUTCOMES ?? 100_000);
const MODE = stormMode(process.env.STORM_MODE ?? "serve");
const WORKERS = Number(process.env.STORM_WORKERS ?? 1);
const CLI = process.env.STORM_CLI ?? fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const PROBE_OUTCOMES = 1000;
/** Outcomes of the small storm forced first (see smallStorm). */
const WARM_OUTCOMES = 2000;
const PROBE_RATE = 200;
/** How long before the deadline the CPU "including preparation" is counted from: the look-ahead's reach and more. */
const PREPARATION_MS = 5500;
const OPEN_CONNECTIONS = 32;
const TOKEN_SECRET = randomBytes(32).toString("base64url");
const KEY_PREFIX = DEFAULT_OPTIONS.keyPrefix;

export interface StormFigures {
  mode: string;
  outcomes: number;
  /** From settles_at until the due-time indexes held none of the storm's outcomes. */
  lastForcedMs: number;
  /** From settles_at until the first had left the index (the monitor's reaction time). */
  firstForcedMs: number;
  /** Outcomes over the time from the deadline until the last was forced. */
  verdictsPerSecond: number;
  confirmed: number;
  /** CPU µs per forced verdict over the storm (from settles_at to the last), per process kind. */
  cpuMicros: { worker: number; ingress: number; supervisor: number; redis: number };
  /**
   * The same from PREPARATION_MS before settles_at: with the workers' look-ahead (loading the outcomes due
   * and preparing their verdicts, done in the 2 s before a deadline) and the single events of that second.
   */
  cpuMicrosWithPreparation: { worker: number; redis: number };
  /** The same per process: each worker's, and each Redis master's, CPU µs over the outcomes. */
  cpuMicrosEach: { worker: number[]; redis: number[] };
  probe: { requests: number; errors: number; p50Ms: number; p99Ms: number };
  /** Redis µs per forced verdict by command over the storm (INFO commandstats), the costliest first. */
  redisCommands: Record<string, number>;
  /**
   * AOF rewrites started between the deadline and the last verdict, over the masters: a rewrite's child
   * runs beside the storm on the same cores.
   */
  aofRewrites: number;
}

async function open(
  dir: string,
  target: Target,
  token: string,
  task: string,
  keys: string[],
  settlesAt?: string,
): Promise<void> {
  const bodies = keys.map((key) =>
    JSON.stringify(settlesAt ? { key, task_key: task, settles_at: settlesAt } : { key, task_key: task }),
  );
  const result = await load(dir, {
    port: target.port,
    path: "/v1/outcomes",
    token,
    bodies,
    connections: OPEN_CONNECTIONS,
    maxRequests: keys.length,
    expectStatus: 201,
  });
  if (result.errors > 0) throw new Error(`opening ${keys.length} outcomes of ${task}: ${result.errors} not 201`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-storm-"));
  const target = await startTarget(dir, { mode: MODE, workers: WORKERS, cli: CLI, tokenSecret: TOKEN_SECRET, env: {} });
  try {
    const keys = new Keys(KEY_PREFIX);
    const { token } = await new Accounts(target.redis, keys, TOKEN_SECRET).create("storm");
    await apiOk(target.port, token, "PUT", "/v1/tasks/storm", { name: "storm", condition: "NOT storm_cancelled" });
    await apiOk(target.port, token, "PUT", "/v1/tasks/probe", { name: "probe", condition: "never_sent" });
    const probeKeys = Array.from({ length: PROBE_OUTCOMES }, (_, i) => `probe-${i}`);
    // The probe outcomes open first: their rate says how long the storm's take, hence its deadline.
    const openStarted = now();
    await open(dir, target, token, "probe", probeKeys);
    const perOutcomeMs = (now() - openStarted) / PROBE_OUTCOMES;
    // One event to each probe outcome first, so every shard has committed before the storm, as on a service
    // that has been running: a worker's first commit on a Redis finds the commit script not loaded yet and
    // is sent twice (EVALSHA, then EVAL), which in a storm would be its first and largest commits.
    const probeBodies = probeKeys.map((key) =>
      JSON.stringify({ outcome_key: key, action: "probe", properties: { value: 1 } }),
    );
    const warm = await load(dir, {
      port: target.port,
      path: "/v1/events",
      token,
      bodies: probeBodies,
      connections: 8,
      maxRequests: probeBodies.length,
      expectStatus: 202,
    });
    if (warm.errors > 0) throw new Error(`${warm.errors} warm-up events not accepted`);
    await smallStorm(dir, target, token, keys, perOutcomeMs);
    const settlesAt = Math.ceil((Date.now() + 5000 + 1.3 * perOutcomeMs * OUTCOMES) / 1000) * 1000;
    const stormKeys = Array.from({ length: OUTCOMES }, (_, i) => `storm-${i}`);
    await open(dir, target, token, "storm", stormKeys, new Date(settlesAt).toISOString());
    if (Date.now() > settlesAt - PREPARATION_MS) throw new Error("opening the storm's outcomes took past its deadline");
    const due = await dueBy(target.redis, keys, settlesAt);
    if (due !== OUTCOMES) throw new Error(`${due} outcomes due at the deadline, not ${OUTCOMES}`);
    const confirmedBefore = await metricSumAll(target, "verdict_verdicts_total", "CONFIRMED");
    // Ahead of the deadline, so that a profiler attached from outside (perf -p) can cover the storm's span.
    console.error(`deadline ${settlesAt} (epoch ms); redis pids ${target.pids.redis.join(",")}`);

    await sleep(settlesAt - PREPARATION_MS - Date.now());
    const preparedFrom = { worker: cpuOf(target.pids.worker), redis: cpuOf(target.pids.redis) };
    // Single events from a second before the deadline to well after it.
    await sleep(settlesAt - 1000 - Date.now());
    const probing = load(dir, {
      port: target.port,
      path: "/v1/events",
      token,
      bodies: probeBodies,
      connections: 8,
      ratePerSecond: PROBE_RATE,
      seconds: 8,
      expectStatus: 202,
    });
    await sleep(settlesAt - Date.now());
    const cpuAt = {
      worker: cpuOf(target.pids.worker),
      ingress: cpuOf(target.pids.ingress),
      supervisor: cpuOf(target.pids.supervisor),
      redis: cpuOf(target.pids.redis),
    };
    const eachAt = {
      worker: target.pids.worker.map((pid) => cpuOf([pid])),
      redis: target.pids.redis.map((pid) => cpuOf([pid])),
    };
    const statsAt = await commandStats(target.masters);
    const rewritesAt = await aofRewrites(target.masters);
    let firstForcedMs = -1;
    for (;;) {
      const left = await dueBy(target.redis, keys, settlesAt);
      if (left < OUTCOMES && firstForcedMs < 0) firstForcedMs = Date.now() - settlesAt;
      if (left === 0) break;
      if (Date.now() - settlesAt > 120_000) throw new Error(`${left} outcomes still due 2 minutes after the deadline`);
      await sleep(10);
    }
    const lastForcedMs = Date.now() - settlesAt;
    const each = {
      worker: target.pids.worker.map((pid, i) => cpuOf([pid]) - eachAt.worker[i]!),
      redis: target.pids.redis.map((pid, i) => cpuOf([pid]) - eachAt.redis[i]!),
    };
    const cpu = {
      worker: cpuOf(target.pids.worker) - cpuAt.worker,
      ingress: cpuOf(target.pids.ingress) - cpuAt.ingress,
      supervisor: cpuOf(target.pids.supervisor) - cpuAt.supervisor,
      redis: cpuOf(target.pids.redis) - cpuAt.redis,
    };
    const withPreparation = {
      worker: cpuOf(target.pids.worker) - preparedFrom.worker,
      redis: cpuOf(target.pids.redis) - preparedFrom.redis,
    };
    const statsAfter = await commandStats(target.masters);
    const rewrites = (await aofRewrites(target.masters)) - rewritesAt;
    const redisCommands: Record<string, number> = {};
    for (const [name, usec] of [...statsAfter]
      .sort((a, b) => b[1] - (statsAt.get(b[0]) ?? 0) - (a[1] - (statsAt.get(a[0]) ?? 0)))
      .slice(0, 6)) {
      redisCommands[name] = Number(((usec - (statsAt.get(name) ?? 0)) / OUTCOMES).toFixed(2));
    }
    const probe = await probing;
    const confirmed = (await metricSumAll(target, "verdict_verdicts_total", "CONFIRMED")) - confirmedBefore;
    const micros = (seconds: number): number => Math.round((seconds * 1e6) / OUTCOMES);
    const figures: StormFigures = {
      mode:
        MODE === "serve"
          ? "serve (npm start)"
          : `${WORKERS} worker(s), ${MODE === "cluster" ? "a 3-master cluster" : "one redis-server"}`,
      outcomes: OUTCOMES,
      lastForcedMs,
      firstForcedMs,
      verdictsPerSecond: Math.round(OUTCOMES / (Math.max(1, lastForcedMs) / 1000)),
      confirmed,
      cpuMicros: {
        worker: micros(cpu.worker),
        ingress: micros(cpu.ingress),
        supervisor: micros(cpu.supervisor),
        redis: micros(cpu.redis),
      },
      cpuMicrosEach: { worker: each.worker.map(micros), redis: each.redis.map(micros) },
      cpuMicrosWithPreparation: { worker: micros(withPreparation.worker), redis: micros(withPreparation.redis) },
      probe: { requests: probe.requests, errors: probe.errors, p50Ms: probe.p50Ms, p99Ms: probe.p99Ms },
      redisCommands,
      aofRewrites: rewrites,
    };
    console.error(
      `${figures.mode}: ${OUTCOMES} forced, the first ${firstForcedMs} ms and the last ${lastForcedMs} ms after the deadline ` +
        `(${figures.verdictsPerSecond}/s; verdict counters +${confirmed}); CPU µs per verdict: worker ${figures.cpuMicros.worker}, ` +
        `ingress ${figures.cpuMicros.ingress}, supervisor/archive ${figures.cpuMicros.supervisor}, redis ${figures.cpuMicros.redis} ` +
        `(each worker ${figures.cpuMicrosEach.worker.join("/")}, each Redis ${figures.cpuMicrosEach.redis.join("/")}); ` +
        `including the ${PREPARATION_MS} ms before the deadline: worker ${figures.cpuMicrosWithPreparation.worker}, ` +
        `redis ${figures.cpuMicrosWithPreparation.redis}; ` +
        `single events meanwhile p50 ${probe.p50Ms.toFixed(1)} ms, p99 ${probe.p99Ms.toFixed(1)} ms (${probe.requests}, ${probe.errors} errors); ` +
        `Redis µs per verdict by command: ${Object.entries(redisCommands)
          .map(([name, usec]) => `${name} ${usec}`)
          .join(", ")}; AOF rewrites during the storm ${rewrites}`,
    );
    console.log(JSON.stringify(figures));
  } finally {
    await target.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A storm of WARM_OUTCOMES forced before the measured one, as on a service that has forced verdicts
 * before: each worker's settle path is compiled by then, a cost per process that would otherwise be
 * counted against the measured storm's verdicts (and against each of several workers in full).
 */
async function smallStorm(dir: string, target: Target, token: string, keys: Keys, perOutcomeMs: number): Promise<void> {
  const at = Math.ceil((Date.now() + 2000 + 1.3 * perOutcomeMs * WARM_OUTCOMES) / 1000) * 1000;
  await open(
    dir,
    target,
    token,
    "storm",
    Array.from({ length: WARM_OUTCOMES }, (_, i) => `warm-${i}`),
    new Date(at).toISOString(),
  );
  await sleep(Math.max(0, at - Date.now()));
  while ((await dueBy(target.redis, keys, at)) > 0) {
    if (Date.now() - at > 120_000) throw new Error("the warm-up storm was not forced within 2 minutes");
    await sleep(100);
  }
}

/** Microseconds spent per command, from INFO commandstats, summed over the masters. */
async function commandStats(masters: readonly Redis[]): Promise<Map<string, number>> {
  const stats = new Map<string, number>();
  for (const info of await Promise.all(masters.map((master) => master.info("commandstats")))) {
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=\d+,usec=(\d+)/gm))
      stats.set(match[1]!, (stats.get(match[1]!) ?? 0) + Number(match[2]));
  }
  return stats;
}

/** AOF rewrites done, running or scheduled since each master started, summed (a difference counts those started). */
async function aofRewrites(masters: readonly Redis[]): Promise<number> {
  let rewrites = 0;
  for (const info of await Promise.all(masters.map((master) => master.info("persistence")))) {
    const field = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1] ?? 0);
    rewrites += field("aof_rewrites") + field("aof_rewrite_in_progress") + field("aof_rewrite_scheduled");
  }
  return rewrites;
}

/** A counter summed over every label and every metrics port of the target (role all serves its children's). */
async function metricSumAll(target: Target, name: string, status: string): Promise<number> {
  const values = await Promise.all(target.metricsPorts.map((port) => metricSum(port, name, `status="${status}"`)));
  return values.reduce((a, b) => a + b, 0);
}

runMain(main);
