// `npm run bench:ab`: this build's ingress against a baseline build's, both in this one process, measured
// in alternating rounds. On a shared host whose speed drifts from minute to minute (see the README), runs
// one after the other cannot tell a 5% change from noise; alternating rounds in one process can.
// BENCH_BASE_DIST: the `dist` folder of the baseline, e.g. after
//   git worktree add /tmp/base <rev> && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npm run build)
// BENCH_AB_RATE: requests/s (0, the default: closed loop, as fast as each answers); BENCH_ROUNDS (12) and
// BENCH_SECONDS (3, per round) as elsewhere. Prints each side's median round: requests/s and the main
// thread's CPU per request (from /proc, so the baseline's and this build's figures share every condition).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  BENCH_QUOTAS,
  cpuSecondsOf,
  load,
  median,
  rotatingRounds,
  runMain,
  singleBodies,
  startRedis,
} from "./harness.js";

type AppModule = typeof import("../src/app.js");
type AccountsModule = typeof import("../src/accounts/accounts.js");
type OptionsModule = typeof import("../src/config/options.js");
type LoggerModule = typeof import("../src/telemetry/logger.js");

const BASE_DIST = process.env.BENCH_BASE_DIST;
const RATE = Number(process.env.BENCH_AB_RATE ?? 0);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 64;

interface Side {
  name: string;
  port: number;
  token: string;
  stop(): Promise<void>;
}

interface Round {
  rate: number;
  cpuMicros: number;
}

/** Starts the ingress of the build in `dist` against `redisUrl`, with its own key prefix and account. */
async function startSide(name: string, dist: string, redisUrl: string): Promise<Side> {
  const from = (path: string): string => pathToFileURL(join(dist, path)).href;
  const { startVerdict } = (await import(from("src/app.js"))) as AppModule;
  const { Accounts } = (await import(from("src/accounts/accounts.js"))) as AccountsModule;
  const { DEFAULT_OPTIONS } = (await import(from("src/config/options.js"))) as OptionsModule;
  const { silentLogger } = (await import(from("src/telemetry/logger.js"))) as LoggerModule;
  const options = {
    ...DEFAULT_OPTIONS,
    quotas: BENCH_QUOTAS,
    role: "ingress" as const,
    port: 0,
    metricsPort: 0,
    redis: { kind: "standalone" as const, url: redisUrl },
    keyPrefix: `${name}:`,
    tokenSecret: randomBytes(32).toString("base64url"),
  };
  const app = await startVerdict(options, { logger: silentLogger });
  const { token } = await new Accounts(app.redis, app.keys, options.tokenSecret).create(name);
  return { name, port: app.port, token, stop: () => app.stop() };
}

/** CPU time of this process's main thread so far, in microseconds. */
const mainThreadMicros = (): number => cpuSecondsOf(process.pid, process.pid) * 1e6;

async function main(): Promise<void> {
  if (!BASE_DIST)
    throw new Error(
      "set BENCH_BASE_DIST to the dist folder of the baseline build (see the header of bench/ab-ingress.ts)",
    );
  const dir = mkdtempSync(join(tmpdir(), "verdict-ab-"));
  const redis = await startRedis(dir);
  const sides = [
    await startSide("base", resolve(BASE_DIST), redis.url),
    await startSide("this", fileURLToPath(new URL("..", import.meta.url)), redis.url),
  ];
  try {
    const measure = async (side: Side, seconds: number): Promise<Round> => {
      const before = mainThreadMicros();
      const result = await load(dir, {
        port: side.port,
        path: "/v1/events",
        token: side.token,
        bodies: singleBodies(),
        connections: CONNECTIONS,
        seconds,
        expectStatus: 202,
        ...(RATE > 0 ? { ratePerSecond: RATE } : {}),
      });
      if (result.errors > 0) throw new Error(`${side.name}: ${result.errors} requests failed`);
      return { rate: result.requests / result.seconds, cpuMicros: (mainThreadMicros() - before) / result.requests };
    };
    for (const side of sides) await measure(side, 2);
    const rounds = await rotatingRounds(sides, ROUNDS, (side) => measure(side, SECONDS));
    console.log(
      `single-event ingress, ${CONNECTIONS} connections, ${RATE > 0 ? `${RATE} requests/s` : "closed loop"}, median of ${ROUNDS} alternating rounds of ${SECONDS} s`,
    );
    for (const [i, results] of rounds.entries()) {
      const name = sides[i]!.name;
      const rate = median(results.map((r) => r.rate));
      const cpu = median(results.map((r) => r.cpuMicros));
      console.log(
        `${name.padEnd(5)} ${rate.toFixed(0).padStart(8)} requests/s   main thread ${cpu.toFixed(1)} µs per request   (rounds: ${results.map((r) => r.rate.toFixed(0)).join(" ")})`,
      );
    }
  } finally {
    for (const side of sides) await side.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
