// The operations part: /metrics, /healthz and /readyz on options.metricsPort (a supervised child has none:
// its supervisor serves them for the machine and asks the child over IPC).
import type { Lifecycle } from "../runtime/lifecycle.js";
import { failingChecks, startHealthServer } from "../telemetry/health-server.js";
import type { Core } from "./core.js";

export interface Operations {
  /** 0 when this process serves no operations port. */
  port: number;
  /** Names of the readiness checks that fail now; empty when ready. */
  failingChecks: () => Promise<string[]>;
}

export async function startOperations(core: Core, serve: boolean, lifecycle: Lifecycle): Promise<Operations> {
  const failing = (): Promise<string[]> => failingChecks(core.readiness);
  if (!serve) return { port: 0, failingChecks: failing };
  const health = await startHealthServer(core.options.metricsPort, core.registry, failing, core.options.metricsHost);
  lifecycle.onStop(() => health.close());
  return { port: health.port, failingChecks: failing };
}
