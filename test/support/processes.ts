// Verdict as separate OS processes (the built CLI), for tests that kill workers with SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "../../bench/free-port.js";
import type { VerdictOptions } from "../../src/config/options.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));

/** The environment that makes `verdict serve` use the same Redis, prefix, secret and shards as `options`. */
export function envFor(options: VerdictOptions): Record<string, string> {
  const env: Record<string, string> = {
    VERDICT_KEY_PREFIX: options.keyPrefix,
    VERDICT_TOKEN_SECRET: options.tokenSecret,
    VERDICT_SHARDS: String(options.shards),
    VERDICT_LEASE_TTL_MS: String(options.leaseTtlMs),
    VERDICT_QUOTA_EVENTS_PER_SECOND: String(options.quotas.eventsPerSecond),
    VERDICT_QUOTA_EVENT_BURST: String(options.quotas.eventBurst),
    VERDICT_LOG_LEVEL: "warn",
  };
  const redis = options.redis;
  if (redis.kind === "standalone") env.REDIS_URL = redis.url;
  if (redis.kind === "cluster") env.REDIS_CLUSTER_NODES = redis.nodes.map((n) => `${n.host}:${n.port}`).join(",");
  return env;
}

export interface VerdictProcess {
  child: ChildProcess;
  /** The API port (served by roles all and ingress). */
  port: number;
  metricsPort: number;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `verdict serve --role ROLE` and waits until its /readyz answers 200. */
export async function spawnVerdict(
  role: "all" | "ingress" | "worker",
  env: Record<string, string>,
): Promise<VerdictProcess> {
  const metricsPort = await freePort();
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, "serve", "--role", role], {
    env: { ...process.env, ...env, VERDICT_PORT: String(port), VERDICT_METRICS_PORT: String(metricsPort) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdict ${role} exited with ${child.exitCode}`);
    try {
      const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
      if (ready.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // Not left running (with its children, under role all) past the test that gave up on it.
      child.kill("SIGKILL");
      throw new Error(`verdict ${role} not ready within 20 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    port,
    metricsPort,
    kill: (signal = "SIGKILL") =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}
