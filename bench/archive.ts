// The archive's benchmark (`npm run bench:archive`, also row 8 of `npm run bench`): Redis bytes per open
// outcome and per settled outcome before and after its retention, and how fast settled outcomes move into
// PostgreSQL. One Verdict (role all, in this process, so `node --cpu-prof dist/bench/archive.js` profiles
// it) on a throwaway redis-server and a fresh database on the machine's PostgreSQL (VERDICT_BENCH_POSTGRES,
// default postgres://postgres@127.0.0.1:5432), dropped at the end.
//
// Outcomes are Variant B, each created and confirmed by one event (a charge each, archived as well), with a
// short retention (2 s). The memory figures come from that run. The copy rate comes from a backlog, so
// that it measures the archive and not how fast verdicts come due: BACKLOG outcomes settle on the same
// Redis with no archive configured, `verdict archive run`'s queueing puts them all in the settled indexes
// (their verdicts past the retention), a Verdict with the archive starts, and the rate is the backlog
// over the time from its first row committed in PostgreSQL to its last. Last, the end-to-end cost: rounds
// with the archive on and off, interleaved, each sending events that create and confirm outcomes.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { Accounts } from "../src/accounts/accounts.js";
import { startVerdict, type VerdictApp } from "../src/app.js";
import { queueSettled } from "../src/cli/archive.js";
import { DEFAULT_OPTIONS, type VerdictOptions } from "../src/config/options.js";
import {
  BENCH_QUOTAS,
  api,
  apiOk,
  cpuSecondsOf,
  cpuSecondsOfCommand,
  now,
  runMain,
  sleep,
  startRedis,
} from "./harness.js";

const SETTLED = Number(process.env.BENCH_ARCHIVE_OUTCOMES ?? 100_000);
const OPEN = 20_000;
const BACKLOG = Number(process.env.BENCH_ARCHIVE_BACKLOG ?? 50_000);
const BATCH = 500;
const IN_FLIGHT = 8;
const RETENTION_MS = 2000;
const E2E_EVENTS = Number(process.env.BENCH_ARCHIVE_E2E_EVENTS ?? 60_000);
const E2E_ROUNDS = 2;
const SERVER = process.env.VERDICT_BENCH_POSTGRES ?? "postgres://postgres@127.0.0.1:5432";
/** Whether the PostgreSQL server's processes are this machine's, for their CPU figure. */
const POSTGRES_IS_LOCAL = ["127.0.0.1", "localhost", "[::1]"].includes(new URL(SERVER).hostname);

export interface ArchiveFigures {
  settled: number;
  bytesPerOpen: number;
  bytesPerSettledHot: number;
  bytesPerSettledAfter: number;
  /** Outcomes copied into PostgreSQL per second from a backlog of `backlog`, queued at once. */
  copyPerSecond: number;
  copySeconds: number;
  /** CPU time of the Verdict process (it runs in this one) per outcome copied: steadier than the rate on a busy host. */
  copyCpuMicrosPerOutcome: number;
  /**
   * CPU per outcome copied of the machine's PostgreSQL processes (null when VERDICT_BENCH_POSTGRES is not on
   * this machine) and of the Redis server, over the same window: what the copy costs beside Verdict's own.
   */
  copyPostgresCpuMicrosPerOutcome: number | null;
  copyRedisCpuMicrosPerOutcome: number;
  backlog: number;
  /** From the first verdict coming due to the last row committed, in the memory run (verdicts keep coming due). */
  pipelineSeconds: number;
  drainSeconds: number;
  usedMemoryStart: number;
  usedMemoryPeak: number;
  usedMemoryEnd: number;
  /** Events per end-to-end round (each creates and confirms an outcome). */
  e2eEvents: number;
  /** Events/s of each round with the archive on, and off, in the order run (interleaved). */
  e2eOn: number[];
  e2eOff: number[];
  /** Outcomes the archive copied into PostgreSQL during an archive-on round, on average. */
  e2eArchivedMeanwhile: number;
}

/** Stream entries the app's shard actors have applied (its own registry: it counts from its start). */
async function eventsProcessed(app: VerdictApp): Promise<number> {
  const metric = await app.registry.getSingleMetric("verdict_events_processed_total")?.get();
  return (metric?.values ?? []).reduce((total, { value }) => total + value, 0);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-archive-"));
  const redis = await startRedis(dir);
  const database = `verdict_bench_${randomBytes(5).toString("hex")}`;
  const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${database}`);
  const sql = postgres(`${SERVER}/${database}`, { max: 1, onnotice: () => {} });
  const options = {
    ...DEFAULT_OPTIONS,
    quotas: BENCH_QUOTAS,
    port: 0,
    metricsPort: 0,
    redis: { kind: "standalone" as const, url: redis.url },
    tokenSecret: randomBytes(32).toString("base64url"),
    archiveUrl: `${SERVER}/${database}`,
    hotRetentionMs: RETENTION_MS,
    // stdout carries the figures as JSON (row 8 of `npm run bench` parses it).
    logLevel: "silent",
  };
  // Each app is stopped once: by the phase that started it, or at the end if a phase failed.
  const running = new Set<VerdictApp>();
  const start = async (with_: VerdictOptions): Promise<VerdictApp> => {
    const started = await startVerdict(with_);
    running.add(started);
    return started;
  };
  const stop = async (app: VerdictApp): Promise<void> => {
    running.delete(app);
    await app.stop();
  };
  const app = await start(options);
  try {
    const { account_id: accountId, token } = await new Accounts(app.redis, app.keys, options.tokenSecret).create(
      "bench",
    );
    let port = app.port;
    const call = (method: string, path: string, body?: unknown): Promise<unknown> =>
      apiOk(port, token, method, path, body);
    await call("PUT", "/v1/agents/closer", { name: "closer", condition: "done" });
    await call("PUT", "/v1/agents/worker", { name: "worker", condition: "step AND done" });
    await call("PUT", "/v1/rate-cards/card", {
      currency: "EUR",
      entries: [
        { agent_key: "closer", unit_amount: 100 },
        { agent_key: "worker", unit_amount: 100 },
      ],
    });
    await call("PUT", "/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    const usedMemory = async (): Promise<number> =>
      Number(/used_memory:(\d+)/.exec(await redis.admin.info("memory"))?.[1]);
    const archived = async (): Promise<number> =>
      Number((await sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes`)[0]!.n);
    const send = async (count: number, event: (i: number) => unknown): Promise<void> => {
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < count) {
            const from = next;
            next = Math.min(count, next + BATCH);
            await call("POST", "/v1/events/batch", {
              events: Array.from({ length: next - from }, (_, i) => event(from + i)),
            });
          }
        }),
      );
    };
    const waiting = async (): Promise<number> => {
      let total = 0;
      for (let shard = 0; shard < options.shards; shard++) {
        total +=
          (await redis.admin.zcard(app.keys.settled(shard))) +
          (await redis.admin.zcard(app.keys.archived(shard))) +
          (await redis.admin.xlen(app.keys.charges(shard, accountId))) +
          (await redis.admin.xlen(app.keys.webhookOutbox(shard)));
      }
      return total;
    };

    // Warm-up: every shard's streams and indexes exist, every script is loaded.
    await send(2000, (i) => ({ key: `warm-${i}`, customer_key: "acme", agent_key: "closer", action: "done" }));
    while ((await archived()) < 2000 || (await waiting()) > 0) await sleep(200);
    const usedMemoryStart = await usedMemory();

    await send(OPEN, (i) => ({ key: `open-${i}`, customer_key: "acme", agent_key: "worker", action: "step" }));
    while ((await redis.admin.dbsize()) === 0) await sleep(100);
    await sleep(1000);
    const withOpen = await usedMemory();

    const sendStart = now();
    await send(SETTLED, (i) => ({ key: `settle-${i}`, customer_key: "acme", agent_key: "closer", action: "done" }));
    const firstDue = sendStart + RETENTION_MS;
    let usedMemoryPeak = await usedMemory();
    let copied = now();
    for (;;) {
      usedMemoryPeak = Math.max(usedMemoryPeak, await usedMemory());
      if ((await archived()) >= 2000 + SETTLED) {
        copied = now();
        break;
      }
      await sleep(100);
    }
    while ((await waiting()) > 0) await sleep(100);
    const drained = now();
    const usedMemoryEnd = await usedMemory();
    const pipelineSeconds = (copied - firstDue) / 1000;

    // The copy rate from a backlog: settled with no archive, then queued all at once.
    await stop(app);
    const plain = await start({ ...options, archiveUrl: undefined });
    port = plain.port;
    await send(BACKLOG, (i) => ({ key: `backlog-${i}`, customer_key: "acme", agent_key: "closer", action: "done" }));
    const confirmed = async (key: string): Promise<boolean> => {
      const answer = await api(port, token, "GET", `/v1/outcomes/${key}`);
      return answer.status === 200 && (answer.body as { status: string }).status === "CONFIRMED";
    };
    for (let i = BACKLOG - BATCH; i < BACKLOG; i++) while (!(await confirmed(`backlog-${i}`))) await sleep(100);
    await stop(plain);
    await sleep(RETENTION_MS); // every backlog verdict is past its retention when it is queued
    const before = await archived();
    await queueSettled(redis.admin, app.keys, options.shards);
    const archiving = await start(options);
    const othersCpu = (): { postgres: number; redis: number } => ({
      postgres: cpuSecondsOfCommand("postgres"),
      redis: cpuSecondsOf(redis.child.pid),
    });
    let copying = now();
    let cpuBefore = process.cpuUsage();
    let othersBefore = othersCpu();
    while ((await archived()) === before) {
      await sleep(5);
      copying = now();
      cpuBefore = process.cpuUsage();
      othersBefore = othersCpu();
    }
    while ((await archived()) < before + BACKLOG) await sleep(20);
    const copySeconds = (now() - copying) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const othersAfter = othersCpu();
    await stop(archiving);

    // End to end with the archive on and off, in interleaved rounds on the same Redis and PostgreSQL: every
    // event creates and confirms an outcome (the archive's heaviest load), timed from the first request to
    // the last event applied; with the archive on, it copies and deletes meanwhile (2 s retention).
    const rates = { on: [] as number[], off: [] as number[] };
    let archivedMeanwhile = 0;
    for (let round = 0; round < 2 * E2E_ROUNDS; round++) {
      const archiveOn = round % 2 === 1;
      const roundApp = await start(archiveOn ? options : { ...options, archiveUrl: undefined });
      port = roundApp.port;
      const archivedBefore = await archived();
      const started = now();
      await send(E2E_EVENTS, (i) => ({
        key: `e2e-${round}-${i}`,
        customer_key: "acme",
        agent_key: "closer",
        action: "done",
      }));
      while ((await eventsProcessed(roundApp)) < E2E_EVENTS) await sleep(20);
      const seconds = (now() - started) / 1000;
      if (archiveOn) archivedMeanwhile += (await archived()) - archivedBefore;
      for (const i of [0, E2E_EVENTS >> 1, E2E_EVENTS - 1]) {
        // A 503 is retried, as its Retry-After asks; any other answer but CONFIRMED fails the run. (The 503s
        // that failed runs here were the liveness monitor's bug, fixed in src/redis/liveness.ts: a client
        // that retries must still not wait forever, so the tries are bounded.)
        for (let tries = 1; ; tries++) {
          const answer = await api(port, token, "GET", `/v1/outcomes/e2e-${round}-${i}`);
          if (answer.status === 200 && (answer.body as { status: string }).status === "CONFIRMED") break;
          if (answer.status !== 503 || tries === 30)
            throw new Error(
              `e2e-${round}-${i} is not CONFIRMED after its event was applied: ${answer.status} ${JSON.stringify(answer.body)}`,
            );
          await sleep(1000);
        }
      }
      await stop(roundApp);
      (archiveOn ? rates.on : rates.off).push(E2E_EVENTS / seconds);
    }
    const figures: ArchiveFigures = {
      settled: SETTLED,
      bytesPerOpen: (withOpen - usedMemoryStart) / OPEN,
      bytesPerSettledHot: (usedMemoryPeak - withOpen) / SETTLED,
      bytesPerSettledAfter: (usedMemoryEnd - withOpen) / SETTLED,
      copyPerSecond: BACKLOG / copySeconds,
      copySeconds,
      copyCpuMicrosPerOutcome: (cpu.user + cpu.system) / BACKLOG,
      copyPostgresCpuMicrosPerOutcome: POSTGRES_IS_LOCAL
        ? ((othersAfter.postgres - othersBefore.postgres) * 1e6) / BACKLOG
        : null,
      copyRedisCpuMicrosPerOutcome: ((othersAfter.redis - othersBefore.redis) * 1e6) / BACKLOG,
      backlog: BACKLOG,
      pipelineSeconds,
      drainSeconds: (drained - sendStart) / 1000,
      usedMemoryStart,
      usedMemoryPeak,
      usedMemoryEnd,
      e2eEvents: E2E_EVENTS,
      e2eOn: rates.on,
      e2eOff: rates.off,
      e2eArchivedMeanwhile: archivedMeanwhile / E2E_ROUNDS,
    };
    console.log(JSON.stringify(figures));
  } finally {
    for (const left of running) await left.stop();
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
