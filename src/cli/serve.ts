// `verdict serve [--role all|ingress|worker]`: runs the service until SIGINT or SIGTERM.
import { startVerdict } from "../app.js";
import { optionsFromEnv } from "../config/env.js";
import type { Role } from "../config/options.js";
import { createLogger } from "../telemetry/logger.js";

const ROLES: readonly Role[] = ["all", "ingress", "worker"];
const STOP_GRACE_MS = 10_000;

function parseRole(args: string[]): Role | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg === "--role" ? args[i + 1] : arg.startsWith("--role=") ? arg.slice("--role=".length) : undefined;
    if (value === undefined) {
      if (arg === "--role" || arg.startsWith("--role=")) throw new Error("--role needs a value: all, ingress or worker");
      throw new Error(`unknown argument ${arg}; usage: verdict serve [--role all|ingress|worker]`);
    }
    if (!ROLES.includes(value as Role)) throw new Error(`--role must be all, ingress or worker (got ${value})`);
    return value as Role;
  }
  return undefined;
}

export async function run(args: string[]): Promise<number> {
  const role = parseRole(args);
  const options = optionsFromEnv(process.env, role === undefined ? {} : { role });
  const logger = createLogger(options.logLevel, { role: options.role });
  const app = await startVerdict(options, { logger });
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      logger.info({ signal }, "stopping");
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  // A Redis that is gone would make the orderly stop wait on retries; past the grace period, just leave
  // (leases expire and another worker reclaims pending entries: nothing accepted is lost).
  const grace = setTimeout(() => {
    logger.warn({ graceMs: STOP_GRACE_MS }, "stop did not finish in time; exiting");
    process.exit(1);
  }, STOP_GRACE_MS);
  await app.stop();
  clearTimeout(grace);
  // uWebSockets.js keeps open keep-alive sockets; the service is stopped, so leave now.
  process.exit(0);
}
