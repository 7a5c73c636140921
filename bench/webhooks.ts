// Webhooks' cost on end-to-end ingest (issue 17: "1,000 messages/s to a local receiver with end-to-end
// ingest within 10% of its figure without webhooks"): the same load with and without an enabled webhook
// endpoint, in one run, alternating, on one ingress and one worker process. Each round opens OUTCOMES
// outcomes and sends the same number of events to each (500-event batches, staggered so that outcomes
// start and finish through the whole round); the last event of each makes its verdict, so a round makes
// OUTCOMES verdicts. That number is set by two first rounds without the endpoint (not counted) so that
// verdicts come at MESSAGES_PER_SECOND (1,000) at the rate they measured: the issue's load, one message
// per verdict, whatever this machine's ingest rate.
// Measured: events/s from the first send to the last verdict committed; with the endpoint, messages/s
// from the first to the last delivered to a receiver in this process (a uWebSockets.js server answering
// 204: a receiver elsewhere costs this machine nothing, and this one costs it little); and the CPU the
// worker process spent per round (its own metric), which a loaded machine distorts less than the rates.
// `npm run bench:webhooks` (BENCH_WEBHOOK_OUTCOMES, BENCH_WEBHOOK_ROUNDS to change the size;
// BENCH_WEBHOOK_EVENTS=N skips the calibration and sends N events per outcome: with 1, a round is mostly
// verdicts and messages, which measures the worker's CPU per message with little else to blur it;
// BENCH_PROFILE_DIR=dir writes the worker's `node --cpu-prof` profile there).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Accounts } from "../src/accounts/accounts.js";
import { uWS } from "../src/ingress/uws.js";
import { Keys } from "../src/redis/keys.js";
import {
  apiOk,
  killAll,
  load,
  median,
  metric,
  now,
  runMain,
  spawnVerdict,
  startRedis,
  stopChild,
  waitUntil,
} from "./harness.js";

const OUTCOMES = Number(process.env.BENCH_WEBHOOK_OUTCOMES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 3);
const MESSAGES_PER_SECOND = 1000;
/** Events per outcome of the calibration round. */
const CALIBRATION_EVENTS = 10;
const BATCH = 500;
const KEY_PREFIX = "bw:";
const TOKEN_SECRET = randomBytes(32).toString("base64url");

interface Round {
  webhooks: boolean;
  eventsPerSecond: number;
  /** Messages delivered per second from the first to the last of the round (the first verdicts come only once the first outcomes have had all their events). */
  messagesPerSecond?: number;
  /** CPU the worker process spent on the round (send to last verdict, and last delivery when on). */
  workerCpuSeconds: number;
}

/**
 * Batches of `perOutcome` "step" events to each key, staggered as outcomes start and finish at a steady
 * pace (groups of keys, each a step behind the one before), so verdicts, and messages, come evenly through
 * the round rather than all at its end. The conditions count steps: batches sent on several connections
 * at once may apply out of order without changing a verdict.
 */
function staggeredBatches(keys: readonly string[], perOutcome: number): string[] {
  const groupSize = Math.max(1, Math.floor(BATCH / perOutcome));
  const groups = Math.ceil(keys.length / groupSize);
  const events: string[] = [];
  for (let tick = 0; tick < groups + perOutcome - 1; tick++) {
    for (let group = Math.max(0, tick - perOutcome + 1); group <= Math.min(tick, groups - 1); group++) {
      for (const key of keys.slice(group * groupSize, (group + 1) * groupSize))
        events.push(`{"outcome_key":${JSON.stringify(key)},"action":"step"}`);
    }
  }
  const bodies: string[] = [];
  for (let i = 0; i < events.length; i += BATCH) bodies.push(`{"events":[${events.slice(i, i + BATCH).join(",")}]}`);
  return bodies;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-webhooks-"));
  const redis = await startRedis(dir);
  let received = 0;
  /** When the receiver got message number `count` (the round's first). */
  const firstOfRound = { count: -1, at: 0 };
  const receiver = uWS.App().post("/hook", (res) => {
    res.onAborted(() => undefined);
    res.onData((_chunk, isLast) => {
      if (!isLast) return;
      if (received++ === firstOfRound.count) firstOfRound.at = now();
      res.cork(() => res.writeStatus("204 No Content").end());
    });
  });
  const listening = await new Promise<uWS.us_listen_socket>((resolve, reject) =>
    receiver.listen("127.0.0.1", 0, (socket) =>
      socket ? resolve(socket) : reject(new Error("the receiver could not listen")),
    ),
  );
  const receiverPort = uWS.us_socket_local_port(listening);
  try {
    const { token } = await new Accounts(redis.admin, new Keys(KEY_PREFIX), TOKEN_SECRET).create("bench");
    const env = {
      redisUrl: redis.url,
      keyPrefix: KEY_PREFIX,
      tokenSecret: TOKEN_SECRET,
      dataDir: join(dir, "data"),
      extra: { VERDICT_SHARDS: "16", VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS: "true" },
    };
    const ingress = await spawnVerdict("ingress", env);
    const worker = await spawnVerdict(
      "worker",
      env,
      process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [],
    );
    const endpoint = (await apiOk(ingress.port, token, "POST", "/v1/webhook-endpoints", {
      url: `http://127.0.0.1:${receiverPort}/hook`,
      event_types: ["outcome.confirmed"],
    })) as { id: string };

    /** One round of OUTCOMES verdicts, `eventsPerOutcome` events each, under a task of its own. */
    const measureRound = async (round: number, webhooks: boolean, eventsPerOutcome: number): Promise<Round> => {
      await apiOk(ingress.port, token, "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { enabled: webhooks });
      const task = `bench-${round}`;
      await apiOk(ingress.port, token, "PUT", `/v1/tasks/${task}`, {
        name: task,
        goal: null,
        condition: `COUNT(step)>=${eventsPerOutcome}`,
      });
      const keys = Array.from({ length: OUTCOMES }, (_, i) => `r${round}:${i}`);
      const opened = await load(dir, {
        port: ingress.port,
        path: "/v1/outcomes",
        token,
        bodies: keys.map((key) => JSON.stringify({ key, task_key: task })),
        connections: 32,
        maxRequests: keys.length,
        expectStatus: 201,
      });
      if (opened.errors > 0) throw new Error(`${opened.errors} outcomes not opened`);
      const bodies = staggeredBatches(keys, eventsPerOutcome);
      const verdictsBefore = await metric(worker.metricsPort, 'verdict_verdicts_total{status="CONFIRMED"}');
      const cpuBefore = await metric(worker.metricsPort, "verdict_process_cpu_seconds_total");
      const receivedBefore = received;
      firstOfRound.count = received;
      const started = now();
      const sent = await load(dir, {
        port: ingress.port,
        path: "/v1/events/batch",
        token,
        bodies,
        connections: 8,
        maxRequests: bodies.length,
        expectStatus: 202,
        expectBody: '"failed":[]',
      });
      if (sent.errors > 0) throw new Error(`${sent.errors} batches not accepted`);
      const committed = await waitUntil(
        () => metric(worker.metricsPort, 'verdict_verdicts_total{status="CONFIRMED"}').then((n) => n - verdictsBefore),
        OUTCOMES,
        120_000,
      );
      const result: Round = {
        webhooks,
        eventsPerSecond: (OUTCOMES * eventsPerOutcome) / ((committed - started) / 1000),
        workerCpuSeconds: 0,
      };
      if (webhooks) {
        const delivered = await waitUntil(() => Promise.resolve(received - receivedBefore), OUTCOMES, 120_000);
        result.messagesPerSecond = (OUTCOMES - 1) / ((delivered - firstOfRound.at) / 1000);
      }
      result.workerCpuSeconds = (await metric(worker.metricsPort, "verdict_process_cpu_seconds_total")) - cpuBefore;
      return result;
    };
    const describe = (r: Round): string =>
      `webhooks ${r.webhooks ? "on " : "off"}  ${Math.round(r.eventsPerSecond).toLocaleString("en")} events/s end to end${r.messagesPerSecond ? `, ${Math.round(r.messagesPerSecond).toLocaleString("en")} messages/s delivered` : ""}, worker CPU ${r.workerCpuSeconds.toFixed(2)} s`;

    // The rate grows with the events per outcome (a verdict costs more than an event) and as the processes
    // warm up: two rounds bring the number close to what makes MESSAGES_PER_SECOND.
    let eventsPerOutcome = Number(process.env.BENCH_WEBHOOK_EVENTS ?? CALIBRATION_EVENTS);
    for (let round = -1; round <= 0 && process.env.BENCH_WEBHOOK_EVENTS === undefined; round++) {
      const calibration = await measureRound(round, false, eventsPerOutcome);
      eventsPerOutcome = Math.max(1, Math.round(calibration.eventsPerSecond / MESSAGES_PER_SECOND));
      console.log(
        `calibration (not counted): ${describe(calibration)}; ${eventsPerOutcome} events per outcome make ${MESSAGES_PER_SECOND.toLocaleString("en")} verdicts/s at that rate`,
      );
    }
    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS * 2; round++) {
      // Alternate, starting with and without in turn, so a slow spell of the machine hits both alike.
      const webhooks = (round % 2 === 1) === (Math.floor((round - 1) / 2) % 2 === 0);
      const result = await measureRound(round, webhooks, eventsPerOutcome);
      rounds.push(result);
      console.log(`round ${round}: ${describe(result)}`);
    }
    const on = median(rounds.filter((r) => r.webhooks).map((r) => r.eventsPerSecond));
    const off = median(rounds.filter((r) => !r.webhooks).map((r) => r.eventsPerSecond));
    const messages = median(rounds.flatMap((r) => (r.messagesPerSecond ? [r.messagesPerSecond] : [])));
    const cpuOn = median(rounds.filter((r) => r.webhooks).map((r) => r.workerCpuSeconds));
    const cpuOff = median(rounds.filter((r) => !r.webhooks).map((r) => r.workerCpuSeconds));
    console.log(
      `webhooks: ${OUTCOMES.toLocaleString("en")} verdicts per round (${eventsPerOutcome} events each), ${ROUNDS} rounds each way: ` +
        `end to end ${Math.round(on).toLocaleString("en")} events/s with an endpoint vs ${Math.round(off).toLocaleString("en")} without (${((on / off) * 100).toFixed(0)}%); ` +
        `${Math.round(messages).toLocaleString("en")} messages/s delivered (target: >= 1,000 messages/s with ingest within 10%); ` +
        `worker CPU per round ${cpuOn.toFixed(2)} s with vs ${cpuOff.toFixed(2)} s without (${(((cpuOn - cpuOff) * 1e6) / OUTCOMES).toFixed(0)} µs per message)`,
    );
    if (process.env.BENCH_PROFILE_DIR) await stopChild(worker.child, "SIGTERM");
  } finally {
    uWS.us_listen_socket_close(listening);
    killAll();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
