// `npm run bench:ingress`: single-event and 500-event batch throughput of the ingress against its own
// redis-server, next to a bare uWebSockets.js server doing one XADD per request, measured in the same run.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { Accounts } from "../src/accounts/accounts.js";
import { startVerdict } from "../src/app.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { uWS } from "../src/ingress/uws.js";
import { silentLogger } from "../src/telemetry/logger.js";

interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Runs only some phases (comma-separated: bare,single,batch), for profiling one at a time. */
const ONLY = new Set((process.env.BENCH_ONLY ?? "bare,single,batch").split(","));
const SKIPPED: LoadResult = { requests: 0, errors: 0, seconds: 1, p50Ms: 0, p99Ms: 0 };
const WARMUP = 2;
const SINGLE_CONNECTIONS = 64;
const BATCH_CONNECTIONS = 8;


function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(dir: string): Promise<{ port: number; child: ChildProcess }> {
  if (spawnSync("redis-server", ["--version"]).error) throw new Error("redis-server is not on PATH");
  let port = await freePort();
  while (port === 6379) port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"],
    { stdio: "ignore" },
  );
  for (let attempt = 0; ; attempt++) {
    const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on("error", () => {});
    try {
      await probe.connect();
      await probe.ping();
      return { port, child };
    } catch (error) {
      if (attempt > 100) {
        child.kill("SIGKILL");
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
}

function load(port: number, path: string, token: string, bodies: string[], connections: number, dir: string, expectStatus: number): Promise<LoadResult> {
  const bodiesFile = join(dir, `bodies-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const spec = { port, path, token, bodiesFile, connections, seconds: SECONDS, warmupSeconds: WARMUP, expectStatus };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL("./load.js", import.meta.url)), JSON.stringify(spec)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (data: Buffer) => (out += data.toString()));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** The baseline: uWS, read the body, one XADD, answer 202. */
function startBare(redisPort: number): Promise<{ port: number; stop(): void }> {
  const redis = new Redis({ port: redisPort, host: "127.0.0.1" });
  const app = uWS.App();
  app.post("/*", (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      redis.xadd("bare:stream", "*", "e", Buffer.concat(chunks)).then(
        () => !aborted && res.cork(() => res.writeStatus("202 Accepted").end('{"accepted":true}')),
        () => !aborted && res.cork(() => res.writeStatus("503 Service Unavailable").end()),
      );
    });
  });
  return new Promise((resolve) =>
    app.listen(0, (socket) => {
      if (!socket) throw new Error("bare server could not listen");
      resolve({ port: uWS.us_socket_local_port(socket), stop: () => { uWS.us_listen_socket_close(socket); redis.disconnect(); } });
    }),
  );
}

function singleBodies(): string[] {
  return Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify(
      i % 2 === 0
        ? { outcome_key: `order-${i}`, action: "payment_captured", properties: { value: i, currency: "EUR" } }
        : { key: `ticket-${i}`, customer_key: "cust-42", agent_key: "support-bot", action: "agent_response", properties: { value: i } },
    ),
  );
}

function batchBodies(): string[] {
  return Array.from({ length: 20 }, (_, b) =>
    JSON.stringify({
      events: Array.from({ length: 500 }, (_, i) => ({ key: `ticket-${b}-${i % 100}`, customer_key: "cust-42", action: "agent_response", properties: { value: i } })),
    }),
  );
}

const rate = (r: LoadResult): number => r.requests / r.seconds;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-"));
  const redis = await startRedis(dir);
  const admin = new Redis({ port: redis.port, host: "127.0.0.1" });
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
    admin.disconnect();
    redis.child.kill("SIGKILL");
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
