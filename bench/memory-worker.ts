// A Verdict worker (`startVerdict`, role worker, the same code `verdict serve --role worker` runs) in its
// own process started with --expose-gc, so bench/run.ts can read its heap after a forced collection.
// Argument: {"redisUrl", "keyPrefix", "tokenSecret"}. Prints {"metricsPort"} once ready; answers the IPC
// message "measure" with {heapUsed, rss, external, arrayBuffers} (bytes) after full collections.
import { startVerdict } from "../src/app.js";
import { DEFAULT_OPTIONS } from "../src/config/options.js";
import pino from "pino";
import { silentLogger } from "../src/telemetry/logger.js";
import { BENCH_QUOTAS } from "./harness.js";

const gc = (globalThis as { gc?: () => void }).gc;

async function settle(): Promise<void> {
  if (!gc) throw new Error("memory-worker needs node --expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main(): Promise<void> {
  const { redisUrl, keyPrefix, tokenSecret } = JSON.parse(process.argv[2] ?? "{}") as {
    redisUrl: string;
    keyPrefix: string;
    tokenSecret: string;
  };
  const app = await startVerdict(
    // The production defaults, lease included.
    {
      ...DEFAULT_OPTIONS,
      quotas: BENCH_QUOTAS,
      role: "worker",
      port: 0,
      metricsPort: 0,
      redis: { kind: "standalone", url: redisUrl },
      keyPrefix,
      tokenSecret,
    },
    // BENCH_DEBUG: warnings to stderr (stdout carries this process's answer).
    { logger: process.env.BENCH_DEBUG ? pino({ level: "info" }, pino.destination(2)) : silentLogger },
  );
  process.on("message", (message) => {
    if (message !== "measure") return;
    void settle().then(() => {
      const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
      process.send?.({ heapUsed, rss, external, arrayBuffers });
    });
  });
  process.stdout.write(`${JSON.stringify({ metricsPort: app.metricsPort })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
