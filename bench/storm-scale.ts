// Deadlines at scale (`npm run bench:storm-scale`, issue 42): SCALE_OUTCOMES (default 1,000,000) open
// outcomes, opened by Variant B events in batches (each CONFIRMED and charged at its deadline), with deadlines spread evenly over the day that starts
// an hour ahead; then the processes at rest (nothing due) sampled every SCALE_SAMPLE_MS for SCALE_REST_MS:
// resident memory and CPU of the worker, the ingress, the supervisor and Redis, and Redis's used memory;
// then SCALE_DUE (default 10,000) more outcomes with one deadline, and the time from it until every one
// was forced. STORM_MODE and STORM_WORKERS choose the processes as for bench/storm.ts (default: what
// `npm start` runs). Prints the samples and one line of figures, then the figures as JSON on the last line.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Accounts } from "../src/accounts/accounts.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { QUOTA_SETTINGS } from "../src/config/quotas.js";
import { Keys } from "../src/redis/keys.js";
import { api, apiOk, cpuSecondsOf, load, metricSum, now, rssOf, runMain, sleep } from "./harness.js";
import { dueBy, startTarget, stormMode, type Target } from "./storm-targets.js";

const OUTCOMES = Number(process.env.SCALE_OUTCOMES ?? 1_000_000);
const DUE = Number(process.env.SCALE_DUE ?? 10_000);
const REST_MS = Number(process.env.SCALE_REST_MS ?? 60_000);
const SAMPLE_MS = Number(process.env.SCALE_SAMPLE_MS ?? 5000);
const MODE = stormMode(process.env.STORM_MODE ?? "serve");
const WORKERS = Number(process.env.STORM_WORKERS ?? 1);
const CLI = process.env.STORM_CLI ?? fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const TOKEN_SECRET = randomBytes(32).toString("base64url");
const BATCH = 500;
/**
 * Batches per load run (100,000 events, well under the ingress's backlog bound): the workers apply each
 * run before the next is sent. Larger runs keep every shard's reads full, so the workers open outcomes in
 * their largest commits.
 */
const BATCHES_PER_RUN = 200;
const OPEN_CONNECTIONS = 16;
/** Keys per kind whose MEMORY USAGE is read for the per-outcome memory figure. */
const MEMORY_SAMPLES = 300;
const DAY_MS = 24 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;
const KINDS = ["worker", "ingress", "supervisor", "redis"] as const;

export interface ScaleSample {
  atMs: number;
  /** Resident memory in MB per process kind (summed over its processes). */
  rssMb: Record<(typeof KINDS)[number], number>;
  /** CPU in % of one core since the previous sample, per process kind. */
  cpuPercent: Record<(typeof KINDS)[number], number>;
  redisUsedMb: number;
}

export interface ScaleFigures {
  mode: string;
  open: number;
  openSeconds: number;
  /** Redis bytes per open outcome by kind of key (MEMORY USAGE of a sample of each, times their count). */
  bytesPerOutcome: Record<string, number>;
  rest: ScaleSample[];
  due: number;
  firstForcedMs: number;
  lastForcedMs: number;
  confirmed: number;
}

const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;

async function sampleAt(
  target: Target,
  atMs: number,
  cpuBefore: Record<string, number>,
  sinceMs: number,
): Promise<ScaleSample> {
  const infos = await Promise.all(target.masters.map((master) => master.info("memory")));
  const rssMb = {} as ScaleSample["rssMb"];
  const cpuPercent = {} as ScaleSample["cpuPercent"];
  const elapsed = (performance.now() - sinceMs) / 1000;
  for (const kind of KINDS) {
    const pids = target.pids[kind];
    rssMb[kind] = mb(pids.reduce((total, pid) => total + rssOf(pid), 0));
    const cpu = pids.reduce((total, pid) => total + cpuSecondsOf(pid), 0);
    cpuPercent[kind] = Math.round((1000 * (cpu - (cpuBefore[kind] ?? 0))) / elapsed) / 10;
    cpuBefore[kind] = cpu;
  }
  return {
    atMs,
    rssMb,
    cpuPercent,
    redisUsedMb: mb(infos.reduce((total, info) => total + Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0), 0)),
  };
}

/** Variant B events that open `keys`, each with its deadline, in batches. */
async function openByEvents(
  dir: string,
  target: Target,
  token: string,
  keys: Keys,
  refs: { names: string[]; openBefore: number },
  deadlineOf: (i: number) => number,
): Promise<void> {
  const names = refs.names;
  for (let first = 0; first < names.length; first += BATCH * BATCHES_PER_RUN) {
    const bodies: string[] = [];
    for (let b = first; b < Math.min(names.length, first + BATCH * BATCHES_PER_RUN); b += BATCH) {
      const events = names.slice(b, b + BATCH).map((key, j) => ({
        key,
        customer_key: "scale",
        agent_key: "scale",
        action: "opened",
        properties: { settles_at: new Date(deadlineOf(b + j)).toISOString() },
      }));
      bodies.push(JSON.stringify({ events }));
    }
    const result = await load(dir, {
      port: target.port,
      path: "/v1/events/batch",
      token,
      bodies,
      connections: OPEN_CONNECTIONS,
      maxRequests: bodies.length,
      expectStatus: 202,
      expectBody: '"failed":[]',
    });
    if (result.errors > 0) throw new Error(`${result.errors} batches not accepted whole`);
    // Paced by the workers: a backlog past the ingress's bound would be refused.
    await opened(target, keys, refs.openBefore + Math.min(names.length, first + BATCH * BATCHES_PER_RUN));
  }
}

/** Waits until the due-time indexes hold `outcomes` (the workers opened them); a minute without progress fails. */
async function opened(target: Target, keys: Keys, outcomes: number): Promise<void> {
  let last = -1;
  let lastMovedAt = Date.now();
  for (;;) {
    const due = await dueBy(target.redis, keys, Number.MAX_SAFE_INTEGER);
    if (due >= outcomes) return;
    if (due !== last) [last, lastMovedAt] = [due, Date.now()];
    if (Date.now() - lastMovedAt > 60_000)
      throw new Error(`${due} outcomes open, not ${outcomes}, and none opened for a minute`);
    await sleep(500);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-scale-"));
  const quotas = {
    [QUOTA_SETTINGS.openOutcomes]: String(4 * OUTCOMES),
    [QUOTA_SETTINGS.eventsPerSecond]: "1000000000",
    [QUOTA_SETTINGS.eventBurst]: "1000000000",
  };
  const target = await startTarget(dir, {
    mode: MODE,
    workers: WORKERS,
    cli: CLI,
    tokenSecret: TOKEN_SECRET,
    env: quotas,
  });
  try {
    const keys = new Keys(DEFAULT_OPTIONS.keyPrefix);
    const { token } = await new Accounts(target.redis, keys, TOKEN_SECRET).create("scale");
    await apiOk(target.port, token, "PUT", "/v1/agents/scale", { name: "scale", condition: "NOT scale_cancelled" });
    // Every verdict is a charge too, as for a fleet billed by outcome.
    await apiOk(target.port, token, "PUT", "/v1/rate-cards/scale", {
      currency: "USD",
      entries: [{ agent_key: "scale", unit_amount: 100 }],
    });
    await apiOk(target.port, token, "PUT", "/v1/customers/scale", { name: "scale", rate_card_key: "scale" });

    const openStarted = now();
    const spreadFrom = Date.now() + HOUR_MS;
    const spread = Array.from({ length: OUTCOMES }, (_, i) => `spread-${i}`);
    await openByEvents(
      dir,
      target,
      token,
      keys,
      { names: spread, openBefore: 0 },
      (i) => spreadFrom + Math.floor((i * DAY_MS) / OUTCOMES),
    );
    const openSeconds = (now() - openStarted) / 1000;
    await expectDue(target, keys, token, OUTCOMES);
    const bytesPerOutcome = await memoryPerOutcome(target, OUTCOMES);
    console.error(
      `${OUTCOMES} outcomes open in ${openSeconds.toFixed(1)} s (${Math.round(OUTCOMES / openSeconds)}/s); Redis bytes per open outcome by key kind: ${JSON.stringify(bytesPerOutcome)}`,
    );
    console.error(`at rest for ${REST_MS / 1000} s:`);

    const rest: ScaleSample[] = [];
    const cpuBefore: Record<string, number> = {};
    let since = performance.now();
    await sampleAt(target, 0, cpuBefore, since);
    const restStarted = performance.now();
    while (performance.now() - restStarted < REST_MS) {
      await sleep(SAMPLE_MS);
      const sample = await sampleAt(target, Math.round(performance.now() - restStarted), cpuBefore, since);
      since = performance.now();
      rest.push(sample);
      console.error(
        `  ${(sample.atMs / 1000).toFixed(0)} s: RSS MB ${JSON.stringify(sample.rssMb)}, CPU % ${JSON.stringify(sample.cpuPercent)}, Redis used ${sample.redisUsedMb} MB`,
      );
    }

    // The due minute: opened as fast as the spread ones were, with a deadline far enough ahead.
    const perEventMs = (openSeconds * 1000) / OUTCOMES;
    const settlesAt = Math.ceil((Date.now() + 5000 + 2 * perEventMs * DUE) / 1000) * 1000;
    const dueKeys = Array.from({ length: DUE }, (_, i) => `due-${i}`);
    await openByEvents(dir, target, token, keys, { names: dueKeys, openBefore: OUTCOMES }, () => settlesAt);
    await expectDue(target, keys, token, OUTCOMES + DUE);
    if (Date.now() > settlesAt - 1000) throw new Error("opening the due minute's outcomes took past its deadline");
    const confirmedBefore = await verdicts(target);
    await sleep(settlesAt - Date.now());
    let firstForcedMs = -1;
    for (;;) {
      const left = await dueBy(target.redis, keys, settlesAt);
      if (left < DUE && firstForcedMs < 0) firstForcedMs = Date.now() - settlesAt;
      if (left === 0) break;
      if (Date.now() - settlesAt > 120_000) throw new Error(`${left} outcomes still due 2 minutes after the deadline`);
      await sleep(10);
    }
    const lastForcedMs = Date.now() - settlesAt;
    const figures: ScaleFigures = {
      mode: MODE,
      open: OUTCOMES,
      openSeconds,
      bytesPerOutcome,
      rest,
      due: DUE,
      firstForcedMs,
      lastForcedMs,
      confirmed: (await verdicts(target)) - confirmedBefore,
    };
    console.error(
      `${DUE} due at one instant beside ${OUTCOMES} open: the first forced ${firstForcedMs} ms and the last ${lastForcedMs} ms after the deadline (verdict counters +${figures.confirmed})`,
    );
    console.log(JSON.stringify(figures));
  } finally {
    await target.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Redis memory per open outcome by kind of key (the name after the shard's hash tag: outcome, log, idem,
 * ...): every key is counted by a SCAN of each master, MEMORY USAGE read for up to MEMORY_SAMPLES of each
 * kind, and the kind's mean times its count spread over the outcomes; "total" is used_memory's.
 */
async function memoryPerOutcome(target: Target, outcomes: number): Promise<Record<string, number>> {
  const kinds = new Map<string, { count: number; sampled: number; bytes: number }>();
  let used = 0;
  for (const master of target.masters) {
    used += Number(/used_memory:(\d+)/.exec(await master.info("memory"))?.[1] ?? 0);
    let cursor = "0";
    do {
      const [next, names] = await master.scan(cursor, "COUNT", 10_000);
      cursor = next;
      const toSample: [{ sampled: number; bytes: number }, string][] = [];
      for (const name of names) {
        const kind = /\}:([^:]+)/.exec(name)?.[1] ?? name;
        let entry = kinds.get(kind);
        if (!entry) kinds.set(kind, (entry = { count: 0, sampled: 0, bytes: 0 }));
        entry.count++;
        if (entry.sampled < MEMORY_SAMPLES) {
          entry.sampled++;
          toSample.push([entry, name]);
        }
      }
      const sizes = await Promise.all(toSample.map(([, name]) => master.memory("USAGE", name, "SAMPLES", "0")));
      toSample.forEach(([entry], i) => (entry.bytes += Number(sizes[i] ?? 0)));
    } while (cursor !== "0");
  }
  const shares = [...kinds].map(([kind, { count, sampled, bytes }]): [string, number] => [
    kind,
    Math.round(((bytes / Math.max(1, sampled)) * count) / outcomes),
  ]);
  const perOutcome: Record<string, number> = { total: Math.round(used / outcomes) };
  for (const [kind, share] of shares.sort((a, b) => b[1] - a[1])) if (share > 0) perOutcome[kind] = share;
  return perOutcome;
}

/** Every outcome opened is in the due-time indexes; else the first dead letters say why not. */
async function expectDue(target: Target, keys: Keys, token: string, outcomes: number): Promise<void> {
  const due = await dueBy(target.redis, keys, Number.MAX_SAFE_INTEGER);
  if (due === outcomes) return;
  const letters = await api(target.port, token, "GET", "/v1/dlq?limit=3");
  throw new Error(`${due} outcomes due, not ${outcomes}; dead letters: ${JSON.stringify(letters.body)}`);
}

async function verdicts(target: Target): Promise<number> {
  const values = await Promise.all(
    target.metricsPorts.map((port) => metricSum(port, "verdict_verdicts_total", 'status="CONFIRMED"')),
  );
  return values.reduce((a, b) => a + b, 0);
}

runMain(main);
