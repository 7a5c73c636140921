// Webhooks' cost on end-to-end ingest (issue 17): the same load with and without an enabled webhook
// endpoint, in one run, alternating, on one ingress and one worker process. Each round opens OUTCOMES
// outcomes and sends EVENTS_PER_OUTCOME events to each (500-event batches); the last event of each makes
// its verdict, so a round makes OUTCOMES verdicts. Measured: events/s from the first send to the last
// verdict committed, and with the endpoint, messages/s delivered to a receiver in this process (a plain
// node:http server answering 204) from the first send to the last message received, the connections it
// accepted, and the CPU the worker process spent per round (its own metric), which a loaded machine
// distorts less than the rates.
// `npm run bench:webhooks` (BENCH_WEBHOOK_OUTCOMES, BENCH_WEBHOOK_ROUNDS to change the size;
// BENCH_PROFILE_DIR=dir writes the worker's `node --cpu-prof` profile there).
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Accounts } from "../src/accounts/accounts.js";
import { Keys } from "../src/redis/keys.js";
import { apiOk, killAll, load, median, metric, now, runMain, spawnVerdict, startRedis, stopChild, waitUntil } from "./harness.js";

const OUTCOMES = Number(process.env.BENCH_WEBHOOK_OUTCOMES ?? 5000);
const ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 2);
const EVENTS_PER_OUTCOME = 10;
const BATCH = 500;
const KEY_PREFIX = "bw:";
const TOKEN_SECRET = randomBytes(32).toString("base64url");

interface Round {
  webhooks: boolean;
  eventsPerSecond: number;
  messagesPerSecond?: number;
  /** CPU the worker process spent on the round (send to last verdict, and last delivery when on). */
  workerCpuSeconds: number;
  /** TCP connections the receiver accepted during the round (keep-alive reuses them). */
  connections: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-webhooks-"));
  const redis = await startRedis(dir);
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(204).end();
    });
  });
  let connections = 0;
  receiver.on("connection", () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const { token } = await new Accounts(redis.admin, new Keys(KEY_PREFIX), TOKEN_SECRET).create("bench");
    const env = { redisUrl: redis.url, keyPrefix: KEY_PREFIX, tokenSecret: TOKEN_SECRET, dataDir: join(dir, "data"), extra: { VERDICT_SHARDS: "16", VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } };
    const ingress = await spawnVerdict("ingress", env);
    const worker = await spawnVerdict("worker", env, process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []);
    const endpoint = (await apiOk(ingress.port, token, "POST", "/v1/webhook-endpoints", { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, event_types: ["outcome.confirmed"] })) as { id: string };
    await apiOk(ingress.port, token, "PUT", "/v1/tasks/bench", { name: "bench", goal: null, condition: `COUNT(step)>=${EVENTS_PER_OUTCOME}` });

    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS * 2; round++) {
      // Alternate, starting with and without in turn, so a slow spell of the machine hits both alike.
      const webhooks = (round % 2 === 0) === (Math.floor(round / 2) % 2 === 0);
      await apiOk(ingress.port, token, "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { enabled: webhooks });
      const keys = Array.from({ length: OUTCOMES }, (_, i) => `r${round}:${i}`);
      const opened = await load(dir, { port: ingress.port, path: "/v1/outcomes", token, bodies: keys.map((key) => JSON.stringify({ key, task_key: "bench" })), connections: 32, maxRequests: keys.length, expectStatus: 201 });
      if (opened.errors > 0) throw new Error(`${opened.errors} outcomes not opened`);
      const bodies: string[] = [];
      for (let step = 0; step < EVENTS_PER_OUTCOME; step++) {
        for (let i = 0; i < keys.length; i += BATCH) bodies.push(JSON.stringify({ events: keys.slice(i, i + BATCH).map((key) => ({ outcome_key: key, action: "step" })) }));
      }
      const verdictsBefore = await metric(worker.metricsPort, 'verdict_verdicts_total{status="CONFIRMED"}');
      const cpuBefore = await metric(worker.metricsPort, "verdict_process_cpu_seconds_total");
      const connectionsBefore = connections;
      const receivedBefore = received;
      const started = now();
      const sent = await load(dir, { port: ingress.port, path: "/v1/events/batch", token, bodies, connections: 8, maxRequests: bodies.length, expectStatus: 202, expectBody: '"failed":[]' });
      if (sent.errors > 0) throw new Error(`${sent.errors} batches not accepted`);
      const committed = await waitUntil(() => metric(worker.metricsPort, 'verdict_verdicts_total{status="CONFIRMED"}').then((n) => n - verdictsBefore), OUTCOMES, 120_000);
      const result: Round = { webhooks, eventsPerSecond: (OUTCOMES * EVENTS_PER_OUTCOME) / ((committed - started) / 1000), workerCpuSeconds: 0, connections: 0 };
      if (webhooks) {
        const delivered = await waitUntil(() => Promise.resolve(received - receivedBefore), OUTCOMES, 120_000);
        result.messagesPerSecond = OUTCOMES / ((delivered - started) / 1000);
      }
      result.workerCpuSeconds = (await metric(worker.metricsPort, "verdict_process_cpu_seconds_total")) - cpuBefore;
      result.connections = connections - connectionsBefore;
      rounds.push(result);
      console.log(
        `round ${round + 1}: webhooks ${webhooks ? "on " : "off"}  ${Math.round(result.eventsPerSecond).toLocaleString("en")} events/s end to end${result.messagesPerSecond ? `, ${Math.round(result.messagesPerSecond).toLocaleString("en")} messages/s delivered over ${result.connections} connections` : ""}, worker CPU ${result.workerCpuSeconds.toFixed(2)} s`,
      );
    }
    const on = median(rounds.filter((r) => r.webhooks).map((r) => r.eventsPerSecond));
    const off = median(rounds.filter((r) => !r.webhooks).map((r) => r.eventsPerSecond));
    const messages = median(rounds.flatMap((r) => (r.messagesPerSecond ? [r.messagesPerSecond] : [])));
    const cpuOn = median(rounds.filter((r) => r.webhooks).map((r) => r.workerCpuSeconds));
    const cpuOff = median(rounds.filter((r) => !r.webhooks).map((r) => r.workerCpuSeconds));
    console.log(
      `webhooks: ${OUTCOMES.toLocaleString("en")} verdicts per round (${EVENTS_PER_OUTCOME} events each), ${ROUNDS} rounds each way: ` +
        `end to end ${Math.round(on).toLocaleString("en")} events/s with an endpoint vs ${Math.round(off).toLocaleString("en")} without (${((on / off) * 100).toFixed(0)}%); ` +
        `${Math.round(messages).toLocaleString("en")} messages/s delivered (target: >= 1,000 messages/s with ingest within 10%); ` +
        `worker CPU per round ${cpuOn.toFixed(2)} s with vs ${cpuOff.toFixed(2)} s without (${(((cpuOn - cpuOff) * 1e6) / OUTCOMES).toFixed(0)} µs per message)`,
    );
    if (process.env.BENCH_PROFILE_DIR) await stopChild(worker.child, "SIGTERM");
  } finally {
    receiver.close();
    killAll();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
