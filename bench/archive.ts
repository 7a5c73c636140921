// The archive's benchmark (`npm run bench:archive`, also row 8 of `npm run bench`): Redis bytes per open
// outcome and per settled outcome before and after its retention, and how fast settled outcomes move into
// PostgreSQL. One Verdict (role all, in this process, so `node --cpu-prof dist/bench/archive.js` profiles
// it) on a throwaway redis-server and a fresh database on the machine's PostgreSQL (VERDICT_BENCH_POSTGRES,
// default postgres://postgres@127.0.0.1:5432), dropped at the end.
//
// Outcomes are Variant B, each created and confirmed by one event (a charge each, archived as well). The
// retention is short (2 s): the copy rate is the outcomes committed to PostgreSQL per second from the
// moment the first verdict came due to the moment the last row committed, while the outcomes keep coming
// due; the delete follows a grace period later.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { Accounts } from "../src/accounts/accounts.js";
import { startVerdict } from "../src/app.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { apiOk, now, runMain, sleep, startRedis } from "./harness.js";

const SETTLED = Number(process.env.BENCH_ARCHIVE_OUTCOMES ?? 100_000);
const OPEN = 20_000;
const BATCH = 500;
const IN_FLIGHT = 8;
const RETENTION_MS = 2000;
const SERVER = process.env.VERDICT_BENCH_POSTGRES ?? "postgres://postgres@127.0.0.1:5432";

export interface ArchiveFigures {
  settled: number;
  bytesPerOpen: number;
  bytesPerSettledHot: number;
  bytesPerSettledAfter: number;
  copyPerSecond: number;
  copySeconds: number;
  drainSeconds: number;
  usedMemoryStart: number;
  usedMemoryPeak: number;
  usedMemoryEnd: number;
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
    port: 0,
    metricsPort: 0,
    redis: { kind: "standalone" as const, url: redis.url },
    tokenSecret: randomBytes(32).toString("base64url"),
    archiveUrl: `${SERVER}/${database}`,
    hotRetentionMs: RETENTION_MS,
    // stdout carries the figures as JSON (row 8 of `npm run bench` parses it).
    logLevel: "silent",
  };
  const app = await startVerdict(options);
  try {
    const { account_id: accountId, token } = await new Accounts(app.redis, app.keys, options.tokenSecret).create("bench");
    const call = (method: string, path: string, body?: unknown): Promise<unknown> => apiOk(app.port, token, method, path, body);
    await call("PUT", "/v1/agents/closer", { name: "closer", condition: "done" });
    await call("PUT", "/v1/agents/worker", { name: "worker", condition: "step AND done" });
    await call("PUT", "/v1/rate-cards/card", { currency: "EUR", entries: [{ agent_key: "closer", unit_amount: 100 }, { agent_key: "worker", unit_amount: 100 }] });
    await call("PUT", "/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
    const usedMemory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await redis.admin.info("memory"))?.[1]);
    const archived = async (): Promise<number> => Number((await sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes`)[0]!.n);
    const send = async (count: number, event: (i: number) => unknown): Promise<void> => {
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < count) {
            const from = next;
            next = Math.min(count, next + BATCH);
            await call("POST", "/v1/events/batch", { events: Array.from({ length: next - from }, (_, i) => event(from + i)) });
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
    const copySeconds = (copied - firstDue) / 1000;
    const figures: ArchiveFigures = {
      settled: SETTLED,
      bytesPerOpen: (withOpen - usedMemoryStart) / OPEN,
      bytesPerSettledHot: (usedMemoryPeak - withOpen) / SETTLED,
      bytesPerSettledAfter: (usedMemoryEnd - withOpen) / SETTLED,
      copyPerSecond: SETTLED / copySeconds,
      copySeconds,
      drainSeconds: (drained - sendStart) / 1000,
      usedMemoryStart,
      usedMemoryPeak,
      usedMemoryEnd,
    };
    console.log(JSON.stringify(figures));
  } finally {
    await app.stop();
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
