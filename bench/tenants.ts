// Two tenants (`npm run bench:tenants`): npm start's processes (a supervisor, one ingress, one worker) on a
// redis-server of their own with a PostgreSQL archive; account B sends single events at 200/s from a thread
// of its own, alone and then while account A floods (bench/tenant-load.ts), TENANTS_ROUNDS times (default 3)
// back to back, so the machine's other work weighs on both sides of each comparison alike. Per phase: B's
// p50 and p99, the load average, CPU seconds per process kind and, while A floods, Redis's costliest commands
// (INFO commandstats). TENANTS_PROFILE=DIR writes the service processes' CPU profiles there (node --cpu-prof);
// TENANTS_NODE_FLAGS adds Node flags to them (say `--trace-gc`, shown with BENCH_DEBUG=1: lines carry the pids printed at start).
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import postgres from "postgres";
import { Accounts } from "../src/accounts/accounts.js";
import { DEFAULT_QUOTAS, QUOTA_SETTINGS, type QuotaOptions } from "../src/config/quotas.js";
import { Keys } from "../src/redis/keys.js";
import { readLua } from "../src/redis/scripts.js";
import {
  cpuSecondsOf,
  cpuSecondsOfCommand,
  median,
  runMain,
  serveDrained,
  servePids,
  spawnVerdict,
  startRedis,
  stopChild,
} from "./harness.js";
import { signUpOnDashboard } from "./dashboard-sign-up.js";
import { apiCaller, Flood, steadyLoad, type SteadyRun } from "./tenant-load.js";

const ROUNDS = Number(process.env.TENANTS_ROUNDS ?? 3);
const SECONDS = Number(process.env.TENANTS_SECONDS ?? 8);
const PROFILE_DIR = process.env.TENANTS_PROFILE;
const NODE_FLAGS = (process.env.TENANTS_NODE_FLAGS ?? "").split(" ").filter(Boolean);
const B_RATE = 200;
const B_OUTCOMES = 20;
const PG_SERVER = process.env.TENANTS_PG ?? "postgres://postgres@127.0.0.1:5432";
/** The two-tenant test's bounds on A (each a documented setting), and its archive retention. */
const ENV = {
  VERDICT_INGRESS_PROCESSES: "1",
  VERDICT_WORKER_PROCESSES: "1",
  VERDICT_HOT_RETENTION: "2s",
  VERDICT_DLQ_RETENTION: "2s",
  VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  VERDICT_DLQ_MAX_PER_ACCOUNT: "2000",
  VERDICT_DLQ_MAX_EVENT_BYTES: "4096",
  VERDICT_WEBHOOK_LOG_MAX: "100",
  VERDICT_WEBHOOK_BACKLOG_MAX: "200",
  VERDICT_OUTCOME_MAX_SNAPSHOT_BYTES: "1048576",
  // The defaults, not the benches' unreachable quotas: the flood is measured against what tenants get.
  ...Object.fromEntries(
    (Object.keys(QUOTA_SETTINGS) as (keyof QuotaOptions)[]).map((name) => [
      QUOTA_SETTINGS[name],
      String(DEFAULT_QUOTAS[name]),
    ]),
  ),
  VERDICT_QUOTA_WEBHOOK_ENDPOINTS: "20",
};

interface Phase {
  name: string;
  run: SteadyRun;
  load1: number;
  /** CPU seconds per process kind while B sent ("bench": this process, B's sender and A's flood). */
  cpu: Record<string, number>;
  /** Each role's event-loop delay over the phase (its p99 and max, ms), as prom-client's default metrics give it. */
  loopDelay: Record<string, { p99: number; max: number }>;
  slow: SlowCalls;
  /** What A's flood did in the phase (a flood phase only). */
  flood?: Flood["sent"] | undefined;
  /** A flood phase: CPU seconds per process kind from its start until its events were applied, and how long that was. */
  drained?: { cpu: Record<string, number>; seconds: number } | undefined;
}

/**
 * Redis commands that held the server longer than SLOW_US (its slow log), by command or script name, with
 * the most arguments one of them had: a count of what the call carried, which load does not change.
 */
type SlowCalls = Record<string, { count: number; maxMs: number; totalMs: number; maxArgs: number }>;

/** Arguments of a slow-log entry: it keeps 32, the last saying how many more there were. */
function argumentCount(args: string[]): number {
  const more = /^\.\.\. \((\d+) more arguments\)$/.exec(String(args.at(-1)));
  return more ? args.length - 1 + Number(more[1]) : args.length;
}

const SLOW_US = 5000;
const SLOW_KEPT = 10_000;

/** Every script of the build by its SHA1, as Scripts loads it (includes inlined). */
function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "includes") walk(path);
      else if (entry.name.endsWith(".lua")) {
        const name = entry.name.slice(0, -4);
        names.set(
          createHash("sha1")
            .update(readLua(pathToFileURL(`${dir}/`), name))
            .digest("hex"),
          name,
        );
      }
    }
  };
  walk(fileURLToPath(new URL("../src/", import.meta.url)));
  return names;
}

function slowCommands(entries: unknown[], scripts: Map<string, string>): SlowCalls {
  const calls: SlowCalls = {};
  for (const entry of entries) {
    const [, , micros, args] = entry as [unknown, unknown, number, string[]];
    const command = String(args[0]).toLowerCase();
    const sha =
      command === "evalsha"
        ? String(args[1])
        : command === "eval"
          ? createHash("sha1").update(String(args[1])).digest("hex")
          : "";
    const name = scripts.get(sha) ?? command;
    const call = (calls[name] ??= { count: 0, maxMs: 0, totalMs: 0, maxArgs: 0 });
    call.count++;
    call.maxArgs = Math.max(call.maxArgs, argumentCount(args));
    call.maxMs = Math.max(call.maxMs, micros / 1000);
    call.totalMs = Math.round(call.totalMs + micros / 1000);
  }
  return calls;
}

/** A phase's flood counts: what A did between two readings of Flood.sent. */
function sentDuring(before: Flood["sent"], after: Flood["sent"]): Flood["sent"] {
  return Object.fromEntries(
    Object.entries(after).map(([name, n]) => [name, n - before[name as keyof Flood["sent"]]]),
  ) as Flood["sent"];
}

/**
 * CPU per process kind per event of A's the service admitted, in µs: the flood phase's CPU until its events
 * were applied, less what the first alone phase (before any flood: no aftermath in it) used in as long.
 */
function perAEvent(alone: Phase, flood: Phase): string {
  const { drained, flood: sent } = flood;
  if (!drained || !sent || sent.deadLetterAdmitted === 0) return "no events admitted";
  return Object.entries(drained.cpu)
    .map(([kind, s]) => {
      const own = (alone.cpu[kind]! / SECONDS) * drained.seconds;
      return `${kind} ${(((s - own) / sent.deadLetterAdmitted) * 1e6).toFixed(1)}`;
    })
    .join(", ");
}

/**
 * Each role's event-loop delay since the last scrape (prom-client resets its histogram at every scrape), in ms,
 * from the supervisor's metrics, which label each child's samples with its role.
 */
async function loopDelays(metricsPort: number): Promise<Record<string, { p99: number; max: number }>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const delays: Record<string, { p99: number; max: number }> = {};
  for (const match of text.matchAll(/^verdict_nodejs_eventloop_lag_(p99|max)_seconds\{([^}]*)\} (\S+)$/gm)) {
    const role = /role="([^"]+)"/.exec(match[2]!)?.[1] ?? match[2]!;
    const delay = (delays[role] ??= { p99: 0, max: 0 });
    delay[match[1] as "p99" | "max"] = Number((Number(match[3]) * 1000).toFixed(1));
  }
  return delays;
}

function commandStats(info: string): Map<string, number> {
  const stats = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_(\S+):calls=\d+,usec=(\d+)/gm)) stats.set(match[1]!, Number(match[2]));
  return stats;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-tenants-"));
  const redis = await startRedis(dir);
  const database = `verdict_bench_${randomBytes(6).toString("hex")}`;
  const pg = postgres(`${PG_SERVER}/postgres`, { max: 1, onnotice: () => {} });
  await pg.unsafe(`CREATE DATABASE ${database}`);
  const keyPrefix = "verdict:";
  const tokenSecret = randomBytes(32).toString("base64url");
  const extra: Record<string, string> = { ...ENV, VERDICT_ARCHIVE_URL: `${PG_SERVER}/${database}` };
  // The supervisor's Node flags reach the processes it forks (node:cluster takes its execArgv).
  const nodeArgs: string[] = [...NODE_FLAGS];
  if (PROFILE_DIR) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${resolve(PROFILE_DIR)}`);
  }
  await redis.admin.config("SET", "slowlog-log-slower-than", String(SLOW_US));
  await redis.admin.config("SET", "slowlog-max-len", String(SLOW_KEPT));
  const service = await spawnVerdict(
    "all",
    { redisUrl: redis.url, keyPrefix, tokenSecret, dataDir: join(dir, "data"), extra },
    nodeArgs,
  );
  try {
    const base = `http://127.0.0.1:${service.port}`;
    const call = apiCaller(base);
    const pids = servePids(service.child.pid!);
    console.log(`pids ${JSON.stringify(pids)}`);
    const tokenB = (await new Accounts(redis.admin, new Keys(keyPrefix), tokenSecret).create("steady")).token;
    if (
      (await call(tokenB, "PUT", "/v1/tasks/steady", { name: "steady", condition: "COUNT(step)>=1000000" })).status !==
      201
    )
      throw new Error("B's task");
    for (let i = 0; i < B_OUTCOMES; i++)
      await call(tokenB, "POST", "/v1/outcomes", { key: `b-${i}`, task_key: "steady" });
    const a = await signUpOnDashboard(base, "Flood Co");
    const flood = new Flood(
      call,
      a.token,
      { base, cookie: a.cookie },
      {
        endpoints: 50,
        livePages: 4,
        deadLetterRate: 2 * DEFAULT_QUOTAS.eventsPerSecond,
      },
    );
    await flood.prepare();

    const cpuNow = (): Record<string, number> => ({
      ingress: pids.ingress.reduce((t, pid) => t + cpuSecondsOf(pid), 0),
      worker: pids.worker.reduce((t, pid) => t + cpuSecondsOf(pid), 0),
      redis: cpuSecondsOf(redis.child.pid),
      postgres: cpuSecondsOfCommand("postgres"),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    });
    const cpuSince = (before: Record<string, number>): Record<string, number> =>
      Object.fromEntries(Object.entries(cpuNow()).map(([kind, s]) => [kind, Number((s - before[kind]!).toFixed(2))]));
    const phases: Phase[] = [];
    const scripts = scriptNames();
    const redisUsec = new Map<string, number>();
    const phase = async (name: string, flooding: boolean): Promise<void> => {
      const cpuBefore = cpuNow();
      const startedAt = performance.now();
      const sentBefore = { ...flood.sent };
      const statsBefore = commandStats(await redis.admin.info("commandstats"));
      await redis.admin.slowlog("RESET");
      await loopDelays(service.metricsPort);
      const floodRun = flooding ? flood.run(SECONDS * 1000 + 1000) : Promise.resolve();
      const run = await steadyLoad({
        base,
        token: tokenB,
        rate: B_RATE,
        seconds: SECONDS,
        outcomes: B_OUTCOMES,
        round: name,
      });
      await floodRun;
      const cpu = cpuSince(cpuBefore);
      const loopDelay = await loopDelays(service.metricsPort);
      if (flooding)
        for (const [command, usec] of commandStats(await redis.admin.info("commandstats")))
          redisUsec.set(command, (redisUsec.get(command) ?? 0) + usec - (statsBefore.get(command) ?? 0));
      const slow = slowCommands((await redis.admin.slowlog("GET", SLOW_KEPT)) as unknown[], scripts);
      const load1 = loadavg()[0]!;
      const sent = flooding ? sentDuring(sentBefore, flood.sent) : undefined;
      // The flood's events are applied (dead-lettered) before B is measured alone again; its dead letters'
      // moves to PostgreSQL and its webhooks' retries may still run, as they would in production.
      if (flooding) await serveDrained(service.metricsPort);
      const drained = flooding
        ? { cpu: cpuSince(cpuBefore), seconds: (performance.now() - startedAt) / 1000 }
        : undefined;
      phases.push({ name, run, load1, cpu, loopDelay, slow, flood: sent, drained });
      console.log(
        `${name.padEnd(10)} B p50 ${run.p50Ms.toFixed(1)} ms p99 ${run.p99Ms.toFixed(1)} ms refused ${run.refused.length}; load ${load1.toFixed(2)}; cpu s ${JSON.stringify(cpu)}; event-loop delay ms ${JSON.stringify(loopDelay)}; Redis calls over ${SLOW_US / 1000} ms: ${JSON.stringify(slow)}`,
      );
      if (sent)
        console.log(
          `${name.padEnd(10)} A offered ${sent.deadLetterEvents} dead-lettering events: admitted ${sent.deadLetterAdmitted} (${(sent.deadLetterAdmitted / (SECONDS + 1)).toFixed(0)}/s over the flood), refused ${sent.deadLetterRefused} whole (429) and ${sent.deadLetterRateLimited} as rate_limited items; ${sent.oversizedEvents} oversized, ${sent.signIns} sign-ins`,
        );
    };
    for (let round = 1; round <= ROUNDS; round++) {
      await phase(`alone-${round}`, false);
      await phase(`flood-${round}`, true);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const [quiet, flooded] = [
        phases.find((p) => p.name === `alone-${round}`)!,
        phases.find((p) => p.name === `flood-${round}`)!,
      ];
      const slow = Object.entries(flooded.slow).map(
        ([name, c]) => `${name} ${c.count} (max ${c.maxMs.toFixed(1)} ms, ${c.maxArgs} args)`,
      );
      console.log(
        `round ${round}: B p99 alone ${quiet.run.p99Ms.toFixed(1)} ms (load ${quiet.load1.toFixed(1)}), while A floods ${flooded.run.p99Ms.toFixed(1)} ms (load ${flooded.load1.toFixed(1)}): ${(flooded.run.p99Ms / quiet.run.p99Ms).toFixed(2)}x; Redis calls over ${SLOW_US / 1000} ms while A floods: ${slow.join(", ") || "none"}`,
      );
      console.log(
        `round ${round}: CPU µs per admitted A event, beyond B's own (flood to drained): ${perAEvent(phases[0]!, flooded)}`,
      );
    }
    const alone = median(phases.filter((p) => p.name.startsWith("alone")).map((p) => p.run.p99Ms));
    const flooded = median(phases.filter((p) => p.name.startsWith("flood")).map((p) => p.run.p99Ms));
    const target = Math.max(3 * alone, 30);
    const top = [...redisUsec]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 8)
      .map(([command, usec]) => `${command} ${(usec / 1000).toFixed(0)} ms`);
    console.log(`A sent ${JSON.stringify(flood.sent)}`);
    console.log(`Redis while A flooded (all rounds): ${top.join(", ")}`);
    const refusedB = phases.reduce((n, p) => n + p.run.refused.length, 0);
    const met = flooded <= target && refusedB === 0;
    console.log(
      `VERDICT ${met ? "MET" : "NOT MET"}: B p99 median alone ${alone.toFixed(1)} ms, while A floods ${flooded.toFixed(1)} ms, ${(flooded / alone).toFixed(2)}x; bound max(3 x ${alone.toFixed(1)}, 30) = ${target.toFixed(1)} ms; B refused ${refusedB}`,
    );
    console.log(JSON.stringify({ alone, flooded, target, phases }));
  } finally {
    await stopChild(service.child, "SIGTERM", 30_000);
    await redis.stop();
    await pg.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await pg.end({ timeout: 5 });
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
