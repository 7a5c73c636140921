// Soak: steady mixed load for many minutes while worker processes are killed (SIGKILL) and replaced, to see
// what grows and to prove nothing is lost. Not part of CI: `npm run soak -- --minutes 30`.
//
// Load: every 100 ms a batch carries the next event of every outcome in flight: new outcomes start, and
// each outcome gets `step`, `step`, `step`, `done`, one per tick, in order. Half are Variant A (opened from a
// task first), half Variant B (created by their first event, billed on confirmation). Both conditions are
// `COUNT(step)>=3 AND done`: an outcome missing an event never confirms, so "no outcome still OPEN at the
// end" is the loss check; then every confirmed outcome is listed (pages of 1,000) and must show exactly 3
// steps and 1 done: the duplication check. Failed batch items are resent with the same idempotency keys
// before the outcome moves on, as a client of the spec would. Alongside, as a careless fleet does, 5% more
// events go to outcomes never opened and 2% to outcomes already settled (soak-strays.ts): each must be in the
// dead-letter queue exactly once at the end, by its code.
//
// Every minute it prints each process's RSS and heap, Redis used_memory, the shard streams' total length,
// the p99 of 202-to-visible (probes: one event, then GET until it shows), and the outcomes settled. It
// fails if an outcome stays OPEN, the dead letters are not exactly the strays, or a process's memory grows
// without bound (the last third of the run's samples above 1.5x, plus 64 MiB, the first third's highest);
// with --archive also if Redis's used_memory grows more than 1 MB a minute over the second half.
//
// The rate: by default half of the capacity measured first in the same run, on the same processes (the
// issue's "half of the measured capacity"): for the hot retention plus 60 s, lanes of this same load shape
// send tick after tick with no pause, no worker killed, and the capacity is the outcomes the workers decided
// per second over the last 60 s (`verdict_verdicts_total`), so with --archive the archiver's copy and delete
// are running in the window. Its backlog is drained before the soak starts.
//
// Flags: --minutes N (default 30); --rate OUTCOMES_PER_SECOND (default `half`, as above; a number sets it:
// without the archive each settled outcome keeps about 5 KB in Redis, so 30 minutes at 250/s need about
// 2 GiB); --kill-every SECONDS (default 120; the oldest worker is killed and
// replaced, in the background while the load goes on); --archive (every process gets VERDICT_ARCHIVE_URL, a
// fresh database on the machine's PostgreSQL, VERDICT_BENCH_POSTGRES, dropped at the end; Redis must then
// stay flat: it fails if Redis grows like a process would fail) with --retention DURATION (default 60s,
// VERDICT_HOT_RETENTION and VERDICT_DLQ_RETENTION).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { Accounts } from "../src/accounts/accounts.js";
import { Keys } from "../src/redis/keys.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import { durationMs } from "../src/config/env.js";
import { deadLettersByCode, secondHalfGrowthPerMinute, StrayTraffic, strayMismatches } from "./soak-strays.js";
import {
  api,
  apiOk,
  killAll,
  metric,
  metricSum,
  now,
  rssOf,
  runMain,
  sleep,
  spawnVerdict,
  startRedis,
  stopChild,
  type VerdictEnv,
  type VerdictProcess,
} from "./harness.js";

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    rate: { type: "string", default: "half" },
    "kill-every": { type: "string", default: "120" },
    archive: { type: "boolean", default: false },
    retention: { type: "string", default: "60s" },
  },
});
const MINUTES = Number(flags.minutes);
const KILL_EVERY_MS = Number(flags["kill-every"]) * 1000;
const POSTGRES = process.env.VERDICT_BENCH_POSTGRES ?? "postgres://postgres@127.0.0.1:5432";
const TICK_MS = 100;
const STAGES = ["step", "step", "step", "done"] as const;
const KEY_PREFIX = "soak:";
const TOKEN_SECRET = randomBytes(32).toString("base64url");
const PROBES = 8;
/** The spec's limit of events per batch request: a tick's events go out in chunks of this many, concurrently. */
const MAX_BATCH = 500;
/** With the archive on, Redis may grow by at most this much a minute over the second half (bytes). */
const MAX_GROWTH_PER_MINUTE = 1e6;
/** Capacity phase: lanes sending tick after tick, each starting this many outcomes a tick (batches of ~500). */
const CAPACITY_LANES = 4;
const CAPACITY_NEW_PER_TICK = 125;
const CAPACITY_WINDOW_MS = 60_000;

interface InFlight {
  key: string;
  variant: "A" | "B";
  stage: number;
}

interface Sample {
  minute: number;
  memory: Record<string, { rss: number; heap: number }>;
  redisBytes: number;
  streamEntries: number;
  visibleP50Ms: number | undefined;
  visibleP99Ms: number | undefined;
  settled: number;
}

if (flags.rate !== "half" && !(Number(flags.rate) > 0))
  throw new Error(`--rate: "half" or outcomes per second, not ${flags.rate}`);

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function quantile(values: number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-soak-"));
  const redis = await startRedis(dir);
  const keys = new Keys(KEY_PREFIX);
  const { token } = await new Accounts(redis.admin, keys, TOKEN_SECRET).create("soak");
  const database = flags.archive ? `verdict_soak_${randomBytes(5).toString("hex")}` : undefined;
  const admin = database ? postgres(`${POSTGRES}/postgres`, { max: 1, onnotice: () => {} }) : undefined;
  if (database) await admin!.unsafe(`CREATE DATABASE ${database}`);
  const archive = database
    ? {
        VERDICT_ARCHIVE_URL: `${POSTGRES}/${database}`,
        VERDICT_HOT_RETENTION: flags.retention,
        VERDICT_DLQ_RETENTION: flags.retention,
      }
    : undefined;
  const env: VerdictEnv = {
    redisUrl: redis.url,
    keyPrefix: KEY_PREFIX,
    tokenSecret: TOKEN_SECRET,
    dataDir: join(dir, "data"),
    extra: archive ?? {},
  };
  const ingress = await spawnVerdict("ingress", env);
  const workers: VerdictProcess[] = [await spawnVerdict("worker", env), await spawnVerdict("worker", env)];
  const port = ingress.port;
  const condition = "COUNT(step)>=3 AND done";
  await apiOk(port, token, "PUT", "/v1/tasks/soak", { name: "soak", condition });
  await apiOk(port, token, "PUT", "/v1/tasks/probe", { name: "probe", condition: "never" });
  await apiOk(port, token, "PUT", "/v1/agents/closer", { name: "closer", condition });
  await apiOk(port, token, "PUT", "/v1/rate-cards/card", {
    currency: "USD",
    entries: [{ agent_key: "closer", unit_amount: 100 }],
  });
  await apiOk(port, token, "PUT", "/v1/customers/acme", { name: "Acme", rate_card_key: "card" });
  let serial = 0;
  let settled = 0;
  let resent = 0;
  /** The fleet's stray events, sent alongside its load once the soak proper starts. */
  const strays = new StrayTraffic();

  /** One lane of the load: its outcomes in flight, each to get its next event in the lane's next tick. */
  type Lane = InFlight[];
  const event = (o: InFlight): Record<string, unknown> => {
    const action = STAGES[o.stage]!;
    const idempotency = `${o.key}/${o.stage}`;
    return o.variant === "A"
      ? { outcome_key: o.key, action, idempotency_key: idempotency }
      : { key: o.key, customer_key: "acme", action, idempotency_key: idempotency };
  };

  /** Sends events until every one is accepted; failed batch items are resent with the same idempotency keys. */
  async function sendAll(events: object[]): Promise<void> {
    let pending = events;
    const since = now();
    while (pending.length > 0) {
      const reply = await api(port, token, "POST", "/v1/events/batch", { events: pending }).catch(() => undefined);
      if (now() - since > 60_000)
        throw new Error(`a batch not accepted for 60 s: ${reply?.status} ${JSON.stringify(reply?.body).slice(0, 300)}`);
      if (reply?.status !== 202) {
        await sleep(100);
        continue;
      }
      const failed = new Set((reply.body as { failed: { index: number }[] }).failed.map((f) => f.index));
      if (failed.size > 0) resent += failed.size;
      pending = pending.filter((_, i) => failed.has(i));
      if (pending.length > 0) await sleep(100);
    }
  }

  /** One tick of a lane: open `fresh` new outcomes (Variant A ones from the task first), then send the next event of every outcome in the lane, in chunks of up to 500 at once. */
  async function tick(lane: Lane, fresh: number): Promise<void> {
    const started: InFlight[] = [];
    for (let i = 0; i < fresh; i++)
      started.push({ key: `soak-${serial}`, variant: serial++ % 2 === 0 ? "A" : "B", stage: 0 });
    await Promise.all(
      started
        .filter((o) => o.variant === "A")
        .map(async (o) => {
          const since = now();
          for (;;) {
            const reply = await api(port, token, "POST", "/v1/outcomes", { key: o.key, task_key: "soak" }).catch(
              () => undefined,
            );
            if (reply?.status === 201 || reply?.status === 409) return;
            if (now() - since > 60_000)
              throw new Error(`opening ${o.key}: ${reply?.status} ${JSON.stringify(reply?.body)}`);
            await sleep(50);
          }
        }),
    );
    lane.push(...started);
    const chunks: InFlight[][] = [];
    for (let i = 0; i < lane.length; i += MAX_BATCH) chunks.push(lane.slice(i, i + MAX_BATCH));
    const strayEvents = strays.alongside(lane.length);
    await Promise.all([
      ...chunks.map((chunk) => sendAll(chunk.map(event))),
      ...(strayEvents.length > 0 ? [sendAll(strayEvents)] : []),
    ]);
    let kept = 0;
    for (const o of lane) {
      if (++o.stage === STAGES.length) {
        settled++;
        if (o.variant === "A") strays.settled(o.key);
      } else lane[kept++] = o;
    }
    lane.length = kept;
  }

  /** Ticks a lane with no new outcomes until everything in it has had its last event. */
  async function finish(lane: Lane): Promise<void> {
    while (lane.length > 0) await tick(lane, 0);
  }

  /** Polls until no outcome of the load is OPEN (every event committed), or `limitMs` passes; the outcomes still OPEN. */
  async function drained(limitMs: number): Promise<number> {
    const since = now();
    let open = 1;
    while (now() - since < limitMs) {
      const page = (await apiOk(port, token, "GET", "/v1/outcomes?status=OPEN&task_key=soak&limit=1")) as {
        outcomes: unknown[];
      };
      const openB = (await apiOk(port, token, "GET", "/v1/outcomes?status=OPEN&agent_key=closer&limit=1")) as {
        outcomes: unknown[];
      };
      open = page.outcomes.length + openB.outcomes.length;
      if (open === 0) break;
      await sleep(500);
    }
    return open;
  }

  const decided = async (): Promise<number> => {
    let sum = 0;
    for (const w of workers) sum += await metricSum(w.metricsPort, "verdict_verdicts_total");
    return sum;
  };

  /** Half of what this machine decides per second with the same load shape, processes and settings, measured now. */
  async function measureCapacity(): Promise<number> {
    const retentionMs = archive ? (durationMs(flags.retention) ?? 0) : 0;
    const phaseMs = retentionMs + CAPACITY_WINDOW_MS;
    console.log(
      `capacity: ${CAPACITY_LANES} lanes of ${CAPACITY_NEW_PER_TICK} new outcomes a tick with no pause for ${phaseMs / 1000} s, counting verdicts over the last ${CAPACITY_WINDOW_MS / 1000} s`,
    );
    const phaseStarted = now();
    const firstSerial = serial;
    let window: Promise<{ verdicts: number; seconds: number }> | undefined;
    const lanes: Lane[] = Array.from({ length: CAPACITY_LANES }, () => []);
    const timer = setTimeout(() => {
      window = (async () => {
        const before = await decided();
        const at = now();
        await sleep(CAPACITY_WINDOW_MS);
        return { verdicts: (await decided()) - before, seconds: (now() - at) / 1000 };
      })();
    }, retentionMs);
    await Promise.all(
      lanes.map(async (lane) => {
        while (now() - phaseStarted < phaseMs) await tick(lane, CAPACITY_NEW_PER_TICK);
        await finish(lane);
      }),
    );
    clearTimeout(timer);
    const measured = await window!;
    const sent = serial - firstSerial;
    const accepted = sent / ((now() - phaseStarted) / 1000);
    const backlogSince = now();
    const open = await drained(600_000);
    if (open > 0) throw new Error("the capacity phase's outcomes were not all decided within 10 minutes");
    const capacity = measured.verdicts / measured.seconds;
    console.log(
      `capacity: ${capacity.toFixed(0)} outcomes/s decided (${(capacity * STAGES.length).toFixed(0)} events/s) while the ingress accepted ${accepted.toFixed(0)} outcomes/s; backlog drained in ${((now() - backlogSince) / 1000).toFixed(0)} s`,
    );
    return capacity / 2;
  }

  const outcomesPerSecond = flags.rate === "half" ? Math.round(await measureCapacity()) : Number(flags.rate);
  console.log(
    `soak: ${MINUTES} min, ${outcomesPerSecond} outcomes/s (${outcomesPerSecond * STAGES.length} events/s${flags.rate === "half" ? ", half the capacity measured" : ""}), a worker killed every ${KILL_EVERY_MS / 1000} s${archive ? `, archive to PostgreSQL after ${flags.retention}` : ", no archive"}`,
  );
  strays.start();
  const started = now();
  const endsAt = started + MINUTES * 60_000;
  const settledBefore = settled;
  let kills = 0;
  const lane: Lane = [];
  /** Outcomes a tick starts: whole ones, carrying the fraction over so the rate is exact on average. */
  let owed = 0;

  const latencies: number[] = [];
  async function probe(i: number, n: number): Promise<void> {
    const key = `probe-${i}`;
    if (n === 0) await apiOk(port, token, "POST", "/v1/outcomes", { key, task_key: "probe" });
    const sent = await api(port, token, "POST", "/v1/events", {
      outcome_key: key,
      action: "probe",
      idempotency_key: `${key}/${n}`,
    });
    if (sent.status !== 202) return;
    const at = now();
    while (now() - at < 60_000) {
      const outcome = (await apiOk(port, token, "GET", `/v1/outcomes/${key}`)) as {
        observations: Record<string, { count: number }>;
      };
      if ((outcome.observations.probe?.count ?? 0) > n) {
        latencies.push(now() - at);
        return;
      }
      await sleep(5);
    }
  }

  const samples: Sample[] = [];
  async function sample(minute: number): Promise<void> {
    const memory: Sample["memory"] = {};
    const processes: [string, VerdictProcess][] = [
      ["ingress", ingress],
      ...workers.map((w, i): [string, VerdictProcess] => [`worker${i + 1}`, w]),
    ];
    for (const [name, p] of processes) {
      memory[name] = {
        rss: rssOf(p.child.pid!),
        heap: await metric(p.metricsPort, "verdict_nodejs_heap_size_used_bytes"),
      };
    }
    const info = await redis.admin.info("memory");
    const redisBytes = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    let streamEntries = 0;
    for (let shard = 0; shard < DEFAULT_OPTIONS.shards; shard++)
      streamEntries += await redis.admin.xlen(keys.stream(shard));
    const minuteLatencies = latencies.splice(0);
    const s: Sample = {
      minute,
      memory,
      redisBytes,
      streamEntries,
      visibleP50Ms: quantile(minuteLatencies, 0.5),
      visibleP99Ms: quantile(minuteLatencies, 0.99),
      settled,
    };
    samples.push(s);
    const mem = Object.entries(memory)
      .map(([name, m]) => `${name} rss ${mib(m.rss)} heap ${mib(m.heap)}`)
      .join(", ");
    console.log(
      `min ${minute}: ${mem}; redis ${mib(redisBytes)}; stream entries ${streamEntries}; 202-to-visible p50 ${s.visibleP50Ms?.toFixed(0) ?? "n/a"} ms, p99 ${s.visibleP99Ms?.toFixed(0) ?? "n/a"} ms; settled ${settled}; kills ${kills} (replacement ready in ${
        readyMs
          .slice(-3)
          .map((ms) => `${(ms / 1000).toFixed(1)} s`)
          .join(", ") || "n/a"
      }); items resent ${resent}`,
    );
  }

  let nextKill = started + KILL_EVERY_MS;
  let replacing: Promise<void> | undefined;
  /** From spawning a replacement worker to its /readyz answering 200. */
  const readyMs: number[] = [];
  let nextSample = started + 60_000;
  let probeRound = 0;
  let nextProbe = started;
  while (now() < endsAt) {
    const tickStarted = now();
    owed += (outcomesPerSecond * TICK_MS) / 1000;
    const fresh = Math.floor(owed);
    owed -= fresh;
    await tick(lane, fresh);
    if (now() >= nextProbe) {
      const n = probeRound++;
      void Promise.all(Array.from({ length: PROBES }, (_, i) => probe(i, n))).catch((error: unknown) =>
        console.error("probe:", error),
      );
      nextProbe += 1000;
    }
    if (now() >= nextSample) {
      await sample(Math.round((now() - started) / 60_000));
      nextSample += 60_000;
    }
    if (now() >= nextKill && !replacing) {
      // In the background: the load goes on while a worker dies and its replacement starts.
      replacing = (async () => {
        const victim = workers.shift()!;
        await stopChild(victim.child, "SIGKILL");
        kills++;
        const spawnedAt = now();
        workers.push(await spawnVerdict("worker", env));
        readyMs.push(now() - spawnedAt);
      })().finally(() => (replacing = undefined));
      nextKill += KILL_EVERY_MS;
    }
    await sleep(Math.max(0, TICK_MS - (now() - tickStarted)));
  }
  await replacing;
  // Finish the outcomes in flight, then let the workers drain.
  console.log(
    `load ended after ${((now() - started) / 60_000).toFixed(1)} min; finishing ${lane.length} outcomes in flight and draining`,
  );
  await finish(lane);
  const open = await drained(120_000);
  const letters = await deadLettersByCode((path) => apiOk(port, token, "GET", path));
  // Every settled outcome applied each of its events exactly once.
  let confirmed = 0;
  let miscounted: string | undefined;
  for (const filter of ["task_key=soak", "agent_key=closer"]) {
    let cursor: string | null = null;
    do {
      const page = (await apiOk(
        port,
        token,
        "GET",
        `/v1/outcomes?status=CONFIRMED&${filter}&limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
      )) as {
        outcomes: { key: string; observations: Record<string, { count: number }> }[];
        next_cursor: string | null;
      };
      for (const o of page.outcomes) {
        confirmed++;
        if (o.observations.step?.count !== 3 || o.observations.done?.count !== 1)
          miscounted ??= `${o.key}: ${JSON.stringify(o.observations)}`;
      }
      cursor = page.next_cursor;
    } while (cursor !== null);
  }
  await sample(Math.round((now() - started) / 60_000));

  const failures: string[] = [];
  if (open > 0) failures.push("outcomes still OPEN 2 minutes after the last event: an event was lost");
  if (confirmed !== settled) failures.push(`${confirmed} outcomes CONFIRMED, ${settled} sent to completion`);
  if (miscounted) failures.push(`an outcome applied an event twice: ${miscounted}`);
  console.log(`dead letters: ${JSON.stringify(letters)}; strays sent: ${JSON.stringify(strays.sent)}`);
  failures.push(...strayMismatches(letters, strays.sent));
  const growth = secondHalfGrowthPerMinute(samples);
  console.log(
    `redis used_memory by minute: ${samples.map((s) => `${s.minute}: ${(s.redisBytes / 1e6).toFixed(2)} MB`).join(", ")}`,
  );
  if (growth !== undefined) {
    console.log(`redis grew ${(growth / 1e6).toFixed(3)} MB a minute over the second half`);
    if (database && growth > MAX_GROWTH_PER_MINUTE)
      failures.push(
        `redis grew ${(growth / 1e6).toFixed(2)} MB a minute over the second half (at most ${MAX_GROWTH_PER_MINUTE / 1e6} MB with the archive on)`,
      );
  }
  // Growth: only processes sampled throughout (the ingress; workers are replaced, so compare by slot).
  const third = Math.max(1, Math.floor(samples.length / 3));
  for (const name of Object.keys(samples[0]?.memory ?? {})) {
    for (const field of ["rss", "heap"] as const) {
      const early = Math.max(...samples.slice(0, third).map((s) => s.memory[name]?.[field] ?? 0));
      const late = Math.max(...samples.slice(-third).map((s) => s.memory[name]?.[field] ?? 0));
      if (late > early * 1.5 + 64 * 2 ** 20) failures.push(`${name} ${field} grew from ${mib(early)} to ${mib(late)}`);
    }
  }
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first && last && last.settled > first.settled) {
    console.log(
      `redis grew ${mib(last.redisBytes - first.redisBytes)} over ${last.settled - first.settled} settled outcomes: ${((last.redisBytes - first.redisBytes) / (last.settled - first.settled)).toFixed(0)} bytes each (settled outcomes stay in Redis unless archived)`,
    );
  }
  if (database) {
    // With the archive, Redis holds the open work and the last retention's verdicts: it must level off.
    const early = Math.max(...samples.slice(0, third).map((s) => s.redisBytes));
    const late = Math.max(...samples.slice(-third).map((s) => s.redisBytes));
    if (late > early * 1.5 + 64 * 2 ** 20)
      failures.push(`redis grew from ${mib(early)} to ${mib(late)} with the archive on`);
    const sql = postgres(`${POSTGRES}/${database}`, { max: 1, onnotice: () => {} });
    const [rows] = await sql<
      { outcomes: string; charges: string }[]
    >`SELECT (SELECT count(*) FROM outcomes) AS outcomes, (SELECT count(*) FROM charges) AS charges`;
    await sql.end({ timeout: 5 });
    console.log(
      `archive: ${rows!.outcomes} outcomes and ${rows!.charges} charges in PostgreSQL (the rest are within their retention, in Redis)`,
    );
  }
  const soaked = settled - settledBefore;
  console.log(
    `soak ${failures.length === 0 ? "passed" : "FAILED"}: ${soaked} outcomes settled (${soaked * STAGES.length} events)${settledBefore > 0 ? ` after ${settledBefore} in the capacity phase` : ""}, ${kills} worker kills, ${resent} batch items resent`,
  );
  for (const failure of failures) console.log(`- ${failure}`);
  await Promise.all([ingress, ...workers].map((p) => stopChild(p.child, "SIGTERM")));
  await redis.stop();
  if (database) {
    await admin!.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin!.end({ timeout: 5 });
  }
  killAll();
  rmSync(dir, { recursive: true, force: true });
  if (failures.length > 0) process.exitCode = 1;
}

runMain(main);
