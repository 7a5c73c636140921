// `verdict serve [--role all|ingress|worker]`: runs the service until SIGINT or SIGTERM. Role all (the
// default) runs a supervisor with the ingress and the workers as child processes, one per core; roles
// ingress and worker run as one process each, for deployments that place them (compose, Kubernetes).
import cluster from "node:cluster";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { startVerdict } from "../app.js";
import { openMigratedArchive, type ConfiguredArchive } from "../archive-db/configured-archive.js";
import { optionsFromEnv } from "../config/env.js";
import type { Role, VerdictOptions } from "../config/options.js";
import { resolveRedis } from "../redis/connect.js";
import { ChildLink } from "../supervisor/child-link.js";
import { lowerCpuPriority } from "../supervisor/cpu-priority.js";
import { processPlan } from "../supervisor/process-plan.js";
import { Supervisor } from "../supervisor/supervisor.js";
import { startHealthServer } from "../telemetry/health-server.js";
import { createLogger, type Logger } from "../telemetry/logger.js";
import { startTracing, type Tracing } from "../telemetry/tracing.js";

const ROLES: readonly Role[] = ["all", "ingress", "worker"];
const STOP_GRACE_MS = 10_000;

function parseRole(args: string[]): Role | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg === "--role" ? args[i + 1] : arg.startsWith("--role=") ? arg.slice("--role=".length) : undefined;
    if (value === undefined) {
      if (arg === "--role" || arg.startsWith("--role="))
        throw new Error("--role needs a value: all, ingress or worker");
      throw new Error(`unknown argument ${arg}; usage: verdict serve [--role all|ingress|worker]`);
    }
    if (!ROLES.includes(value as Role)) throw new Error(`--role must be all, ingress or worker (got ${value})`);
    return value as Role;
  }
  return undefined;
}

/** Resolves on the first of `signals` (or when `also` resolves), logging which. */
function untilStopped(logger: Logger, signals: readonly NodeJS.Signals[], also?: Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      logger.info({ signal }, "stopping");
      for (const s of signals) process.off(s, onSignal);
      resolve();
    };
    for (const s of signals) process.on(s, onSignal);
    void also?.then(resolve);
  });
}

/**
 * Runs `stop`, then exits. A Redis that is gone would make the orderly stop wait on retries; past the grace
 * period, just leave (leases expire and another worker reclaims pending entries: nothing accepted is lost).
 */
async function stopThenExit(logger: Logger, stop: () => Promise<void>, graceMs = STOP_GRACE_MS): Promise<never> {
  const grace = setTimeout(() => {
    logger.warn({ graceMs }, "stop did not finish in time; exiting");
    process.exit(1);
  }, graceMs);
  await stop();
  clearTimeout(grace);
  // uWebSockets.js keeps open keep-alive sockets; the service is stopped, so leave now.
  process.exit(0);
}

/** Tracing runs in the processes that serve requests and apply events, when an OTLP endpoint is set. */
function tracingFor(options: VerdictOptions, logger: Logger): Tracing | undefined {
  if (options.otlpEndpoint === undefined) return undefined;
  logger.info({ endpoint: options.otlpEndpoint }, "exporting traces over OTLP/HTTP");
  return startTracing(options.role, process.env);
}

/** Stops the app, then flushes the spans it ended. */
function stopAppAndTracing(app: { stop(): Promise<void> }, tracing: Tracing | undefined): () => Promise<void> {
  return async () => {
    await app.stop();
    await tracing?.stop();
  };
}

/** One process running its role's parts. */
async function runSingle(options: VerdictOptions): Promise<number> {
  const logger = createLogger(options.logLevel, { role: options.role });
  const tracing = tracingFor(options, logger);
  const app = await startVerdict(options, { logger });
  await untilStopped(logger, ["SIGINT", "SIGTERM"]);
  return stopThenExit(logger, stopAppAndTracing(app, tracing));
}

/**
 * A child of the supervisor. It ignores SIGINT (Ctrl-C signals the terminal's whole process group, and
 * the supervisor stops the children in order with SIGTERM) and stops when the supervisor is gone.
 */
async function runChild(options: VerdictOptions): Promise<number> {
  if (options.role === "worker") lowerCpuPriority(options.workerNice);
  const logger = createLogger(options.logLevel, { role: options.role });
  let supervisorGone!: () => void;
  const gone = new Promise<void>((resolve) => (supervisorGone = resolve));
  const link = new ChildLink(logger, supervisorGone);
  process.on("SIGINT", () => {});
  const tracing = tracingFor(options, logger);
  const app = await startVerdict(options, { logger, operationsPort: false });
  app.registry.setDefaultLabels({ role: options.role });
  link.attach(app);
  await untilStopped(logger, ["SIGTERM"], gone);
  return stopThenExit(logger, stopAppAndTracing(app, tracing));
}

/** A port nobody listens on now, for the ingress children to share when the options ask for any (0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * With the embedded Redis and no VERDICT_ARCHIVE_URL, the embedded archive: PGlite runs in the supervisor,
 * served to the children on a unix socket, and migrated here once before any child opens it.
 */
async function startArchive(options: VerdictOptions, logger: Logger): Promise<ConfiguredArchive | undefined> {
  if (options.archiveUrl !== undefined || options.redis.kind !== "embedded") return undefined;
  return openMigratedArchive(options, logger);
}

async function runSupervisor(options: VerdictOptions): Promise<number> {
  const logger = createLogger(options.logLevel, { role: "supervisor" });
  // The embedded Redis is started once, here; the children find it serving the same data dir and reuse it.
  const redis = options.redis.kind === "embedded" ? await resolveRedis(options.redis, logger) : undefined;
  const archive = await startArchive(options, logger);
  const port = options.port === 0 ? await freePort() : options.port;
  const plan = processPlan(availableParallelism(), {
    ingress: options.ingressProcesses,
    worker: options.workerProcesses,
  });
  const supervisor = new Supervisor({
    plan,
    exec: process.argv[1]!,
    args: ["serve"],
    env: { VERDICT_PORT: String(port) },
    logger,
    stopGraceMs: STOP_GRACE_MS,
  });
  const metrics = { contentType: supervisor.registry.contentType, metrics: () => supervisor.metrics() };
  const health = await startHealthServer(
    options.metricsPort,
    metrics,
    () => supervisor.failingChecks(),
    options.metricsHost,
  );
  supervisor.start();
  logger.info({ port, metricsPort: health.port, ...plan }, "verdict started");
  await untilStopped(logger, ["SIGINT", "SIGTERM"]);
  // Two phases (ingress, then workers), each within a child's grace, then the embedded archive (its clients
  // are gone) and the embedded Redis last.
  return stopThenExit(
    logger,
    async () => {
      await supervisor.stop();
      await health.close();
      await archive?.close();
      await redis?.release();
    },
    2 * STOP_GRACE_MS + 5000,
  );
}

export async function run(args: string[]): Promise<number> {
  const role = parseRole(args);
  const options = optionsFromEnv(process.env, role === undefined ? {} : { role });
  if (cluster.isWorker) return runChild(options);
  return options.role === "all" ? runSupervisor(options) : runSingle(options);
}
