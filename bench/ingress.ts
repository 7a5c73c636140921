// `npm run bench:ingress`: single-event and 500-event batch throughput of the ingress against its own
// redis-server, next to a bare uWebSockets.js server doing one XADD per request. Both servers run in this
// process and the single-event figures come from interleaved rounds, as in `npm run bench`: a slow spell
// of the shared host then hits both alike instead of whichever happened to run during it.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Accounts } from "../src/accounts/accounts.js";
import { startVerdict } from "../src/app.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { silentLogger } from "../src/telemetry/logger.js";
import { startBare } from "./bare-server.js";
import {
  BENCH_QUOTAS,
  batchBodies,
  load as runLoad,
  medianRound,
  rate,
  rotatingRounds,
  runMain,
  singleBodies,
  startRedis,
  type LoadResult,
} from "./harness.js";

/** Measured seconds per server and scenario, split over the rounds. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Runs only some phases (comma-separated: bare,single,batch), for profiling one at a time. */
const ONLY = new Set((process.env.BENCH_ONLY ?? "bare,single,batch").split(","));
const SKIPPED: LoadResult = { requests: 0, errors: 0, seconds: 1, p50Ms: 0, p99Ms: 0, startedAtMs: 0, endedAtMs: 0 };
/** Warm-up before each round. */
const WARMUP = 1;
const SINGLE_CONNECTIONS = 64;
const BATCH_CONNECTIONS = 8;

interface Target {
  phase: string;
  port: number;
  path: string;
  token: string;
  bodies: string[];
  connections: number;
}

/** Runs the targets (of the phases asked for) in rotating rounds; each figure is its median round. */
async function interleaved(targets: Target[], dir: string): Promise<Map<string, LoadResult>> {
  const measured = targets.filter((target) => ONLY.has(target.phase));
  const rounds = await rotatingRounds(measured, ROUNDS, ({ phase: _phase, ...spec }) =>
    runLoad(dir, { ...spec, seconds: SECONDS / ROUNDS, warmupSeconds: WARMUP, expectStatus: 202 }),
  );
  const medians = new Map(measured.map((target, i) => [target.phase, medianRound(rounds[i]!)]));
  return new Map(targets.map((target) => [target.phase, medians.get(target.phase) ?? SKIPPED]));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-"));
  const redis = await startRedis(dir);
  try {
    const bare = await startBare(redis.port);
    const options = {
      ...DEFAULT_OPTIONS,
      quotas: BENCH_QUOTAS,
      role: "ingress" as const,
      port: 0,
      metricsPort: 0,
      redis: { kind: "standalone" as const, url: `redis://127.0.0.1:${redis.port}` },
      keyPrefix: "bench:",
      tokenSecret: randomBytes(32).toString("base64url"),
    };
    const app = await startVerdict(options, { logger: silentLogger });
    const { token } = await new Accounts(app.redis, app.keys, options.tokenSecret).create("bench");
    const single = await interleaved(
      [
        {
          phase: "bare",
          port: bare.port,
          path: "/bare",
          token: "x",
          bodies: singleBodies(),
          connections: SINGLE_CONNECTIONS,
        },
        {
          phase: "single",
          port: app.port,
          path: "/v1/events",
          token,
          bodies: singleBodies(),
          connections: SINGLE_CONNECTIONS,
        },
      ],
      dir,
    );
    bare.stop();
    // Nothing consumes the streams here: empty them, or the batch run would meet the backlog limit.
    await Promise.all(Array.from({ length: options.shards }, (_, shard) => app.redis.del(app.keys.stream(shard))));
    await redis.admin.del("bare:stream");
    const batch = await interleaved(
      [
        {
          phase: "batch",
          port: app.port,
          path: "/v1/events/batch",
          token,
          bodies: batchBodies(),
          connections: BATCH_CONNECTIONS,
        },
      ],
      dir,
    );
    await app.stop();

    const line = (name: string, r: LoadResult): string =>
      `${name.padEnd(34)} ${rate(r).toFixed(0).padStart(9)} req/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms   errors ${r.errors}`;
    const bareResult = single.get("bare")!;
    const singleResult = single.get("single")!;
    const batchResult = batch.get("batch")!;
    console.log(
      `ingress benchmark: median of ${ROUNDS} interleaved rounds of ${(SECONDS / ROUNDS).toFixed(1)} s per server, each after ${WARMUP} s of warm-up; load generator in a child process`,
    );
    console.log(line(`bare uWS + XADD (${SINGLE_CONNECTIONS} conns)`, bareResult));
    console.log(line(`verdict POST /v1/events (${SINGLE_CONNECTIONS} conns)`, singleResult));
    console.log(`single-event ratio verdict/bare: ${((rate(singleResult) / rate(bareResult)) * 100).toFixed(1)}%`);
    console.log(line(`verdict batch x500 (${BATCH_CONNECTIONS} conns)`, batchResult));
    console.log(`batch ingest: ${(rate(batchResult) * 500).toFixed(0)} events/s`);
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
