// One Verdict process, as a plan: the core (Redis, keys, metrics, the archive), then the parts its role
// runs (the ingress, the worker), then the operations port. Each part registers what stops it with one
// lifecycle as it starts, so the process stops in the reverse order, and a failed start undoes the rest.
import type { Registry } from "prom-client";
import type { VerdictOptions } from "./config/options.js";
import type { Route } from "./ingress/router.js";
import type { RedisClient } from "./redis/client.js";
import type { Keys } from "./redis/keys.js";
import { Lifecycle } from "./runtime/lifecycle.js";
import { createLogger, type Logger } from "./telemetry/logger.js";
import { startCore, type AppContext } from "./app/core.js";
import { startIngress } from "./app/ingress.js";
import { startOperations } from "./app/operations.js";
import { startWorker } from "./app/worker.js";

export type { AppContext } from "./app/core.js";

export interface VerdictExtras {
  /** Defaults to a pino logger at options.logLevel. */
  logger?: Logger;
  /** More HTTP routes, built once the app's Redis and keys exist (served by roles all and ingress). */
  extraRoutes?: (context: AppContext) => Route[];
  /**
   * The business clock: receive times stamped at the edge, read-time evaluation and the monitor's time
   * points. Leases and timeouts always use real time. Tests freeze it to check exact IDLE brackets.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Serve /metrics, /healthz and /readyz on options.metricsPort. A supervised child does not: its
   * supervisor serves them for the machine and asks the child over IPC.
   * @default true
   */
  operationsPort?: boolean;
}

export interface VerdictApp {
  /** HTTP API port; 0 when this role serves no API (worker). */
  port: number;
  /** The operations port; 0 when the app serves none (a supervised child). */
  metricsPort: number;
  redis: RedisClient;
  registry: Registry;
  /** Names of the readiness checks that fail now; empty when ready. */
  failingChecks(): Promise<string[]>;
  keys: Keys;
  /** The HTTP routes this app serves (empty for a worker). */
  routes: readonly Pick<Route, "method" | "path">[];
  /** Stops everything this app started, newest first. */
  stop(): Promise<void>;
}

export async function startVerdict(options: VerdictOptions, extras: VerdictExtras = {}): Promise<VerdictApp> {
  const logger = extras.logger ?? createLogger(options.logLevel, { role: options.role });
  const lifecycle = new Lifecycle(logger);
  const runsIngress = options.role !== "worker";
  const runsWorker = options.role !== "ingress";
  return lifecycle.starting(async () => {
    const core = await startCore(options, logger, extras.clock ?? Date.now, lifecycle);
    const ingress = runsIngress ? await startIngress(core, extras.extraRoutes, lifecycle) : undefined;
    if (runsWorker) await startWorker(core, lifecycle);
    const operations = await startOperations(core, extras.operationsPort ?? true, lifecycle);
    const port = ingress?.port ?? 0;
    logger.info({ port, metricsPort: operations.port }, "verdict started");
    return {
      port,
      metricsPort: operations.port,
      redis: core.redis,
      registry: core.registry,
      failingChecks: operations.failingChecks,
      keys: core.keys,
      routes: (ingress?.routes ?? []).map(({ method, path }) => ({ method, path })),
      stop: () => lifecycle.stop(),
    };
  });
}
