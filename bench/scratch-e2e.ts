// Scratch (not committed): worker-bound e2e rate by load shape, separate ingress + worker.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Accounts } from "../src/accounts/accounts.js";
import { Keys } from "../src/redis/keys.js";
import { apiOk, killAll, load, metric, now, runMain, spawnVerdict, startRedis, stopChild, waitUntil } from "./harness.js";

const TOKEN_SECRET = randomBytes(32).toString("base64url");
const OUTCOMES = 10_000;
const PER = 50;
async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "scratch-"));
  const redis = await startRedis(dir);
  const { token } = await new Accounts(redis.admin, new Keys("s:"), TOKEN_SECRET).create("b");
  const env = { redisUrl: redis.url, keyPrefix: "s:", tokenSecret: TOKEN_SECRET, dataDir: join(dir, "data"), extra: {} };
  const ingress = await spawnVerdict("ingress", env);
  const worker = await spawnVerdict("worker", env, process.env.PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROF}`] : []);
  try {
    const shapes = (process.env.SHAPES ?? "props,plain,props,plain").split(",");
    let round = 0;
    for (const shape of shapes) {
      round++;
      const task = `t${round}`;
      await apiOk(ingress.port, token, "PUT", `/v1/tasks/${task}`, { name: task, condition: "bench_done" });
      const keys = Array.from({ length: OUTCOMES }, (_, i) => `r${round}-${i}`);
      const opened = await load(dir, { port: ingress.port, path: "/v1/outcomes", token, bodies: keys.map((key) => JSON.stringify({ key, task_key: task })), connections: 32, maxRequests: keys.length, expectStatus: 201 });
      if (opened.errors) throw new Error("open");
      const bodies: string[] = [];
      for (let b = 0; b < OUTCOMES / 500; b++) {
        bodies.push(JSON.stringify({ events: keys.slice(b * 500, b * 500 + 500).map((k, i) => (shape === "props" ? { outcome_key: k, action: "step", properties: { value: i } } : { outcome_key: k, action: "step" })) }));
      }
      const before = await metric(worker.metricsPort, "verdict_events_processed_total");
      const cpu0 = await metric(worker.metricsPort, "verdict_process_cpu_seconds_total");
      const t0 = now();
      const sent = await load(dir, { port: ingress.port, path: "/v1/events/batch", token, bodies, connections: 16, maxRequests: (OUTCOMES * PER) / 500, expectStatus: 202, expectBody: '"failed":[]' });
      if (sent.errors) throw new Error("send");
      const done = await waitUntil(async () => (await metric(worker.metricsPort, "verdict_events_processed_total")) - before, OUTCOMES * PER, 300_000, 20);
      const cpu = (await metric(worker.metricsPort, "verdict_process_cpu_seconds_total")) - cpu0;
      console.log(`${shape}: ${Math.round((OUTCOMES * PER) / ((done - t0) / 1000))} events/s e2e; sending ${sent.seconds.toFixed(2)} s; worker CPU ${((cpu * 1e6) / (OUTCOMES * PER)).toFixed(1)} us/event`);
    }
    const text = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
    console.log(text.split("\n").filter((l) => l.startsWith("verdict_batch_commit_seconds")).join("\n"));
    if (process.env.PROF) await stopChild(worker.child, "SIGTERM");
  } finally {
    killAll();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
runMain(main);
