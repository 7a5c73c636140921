// `npm run bench:ingress`: single-event and 500-event batch throughput of the ingress against its own
// redis-server, next to a bare uWebSockets.js server doing one XADD per request, measured in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Accounts } from "../src/accounts/accounts.js";
import { startVerdict } from "../src/app.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { silentLogger } from "../src/telemetry/logger.js";
import { startBare } from "./bare-server.js";
import { batchBodies, load as runLoad, rate, singleBodies, startRedis, type LoadResult } from "./harness.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Runs only some phases (comma-separated: bare,single,batch), for profiling one at a time. */
const ONLY = new Set((process.env.BENCH_ONLY ?? "bare,single,batch").split(","));
const SKIPPED: LoadResult = { requests: 0, errors: 0, seconds: 1, p50Ms: 0, p99Ms: 0, startedAtMs: 0, endedAtMs: 0 };
const WARMUP = 2;
const SINGLE_CONNECTIONS = 64;
const BATCH_CONNECTIONS = 8;

function load(port: number, path: string, token: string, bodies: string[], connections: number, dir: string, expectStatus: number): Promise<LoadResult> {
  return runLoad(dir, { port, path, token, bodies, connections, seconds: SECONDS, warmupSeconds: WARMUP, expectStatus });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-"));
  const redis = await startRedis(dir);
  const admin = redis.admin;
  try {
    const bare = await startBare(redis.port);
    const bareResult = ONLY.has("bare") ? await load(bare.port, "/bare", "x", singleBodies(), SINGLE_CONNECTIONS, dir, 202) : SKIPPED;
    bare.stop();
    await admin.flushall();

    const options = {
      ...DEFAULT_OPTIONS,
      role: "ingress" as const,
      port: 0,
      metricsPort: 0,
      redis: { kind: "standalone" as const, url: `redis://127.0.0.1:${redis.port}` },
      keyPrefix: "bench:",
      tokenSecret: "bench-secret-bench-secret",
    };
    const app = await startVerdict(options, { logger: silentLogger });
    const { token } = await new Accounts(app.redis, app.keys, options.tokenSecret).create("bench");
    const single = ONLY.has("single") ? await load(app.port, "/v1/events", token, singleBodies(), SINGLE_CONNECTIONS, dir, 202) : SKIPPED;
    await admin.flushall();
    await new Accounts(app.redis, app.keys, options.tokenSecret).create("bench-2");
    const batch = ONLY.has("batch") ? await load(app.port, "/v1/events/batch", token, batchBodies(), BATCH_CONNECTIONS, dir, 202) : SKIPPED;
    await app.stop();

    const line = (name: string, r: LoadResult): string =>
      `${name.padEnd(34)} ${rate(r).toFixed(0).padStart(9)} req/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms   errors ${r.errors}`;
    console.log(`ingress benchmark: ${SECONDS} s per run after ${WARMUP} s warm-up, load generator in a child process`);
    console.log(line(`bare uWS + XADD (${SINGLE_CONNECTIONS} conns)`, bareResult));
    console.log(line(`verdict POST /v1/events (${SINGLE_CONNECTIONS} conns)`, single));
    console.log(`single-event ratio verdict/bare: ${((rate(single) / rate(bareResult)) * 100).toFixed(1)}%`);
    console.log(line(`verdict batch x500 (${BATCH_CONNECTIONS} conns)`, batch));
    console.log(`batch ingest: ${(rate(batch) * 500).toFixed(0)} events/s`);
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
