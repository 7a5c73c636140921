// Ends expired trace holds on a timer: their spans never learned an outcome key, so they are counted and logged.
import type { Logger } from "../telemetry/logger.js";
import type { OtlpMetrics } from "./otlp-metrics.js";
import type { TraceHold } from "./trace-hold.js";

export interface HoldSweeper {
  stop(): Promise<void>;
}

/** Sweeps every `intervalMs` (single flight); any ingress may sweep, the script ends each hold once. */
export function startHoldSweeper(
  hold: TraceHold,
  intervalMs: number,
  clock: () => number,
  metrics: OtlpMetrics,
  logger: Logger,
): HoldSweeper {
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running) return;
    running = hold
      .sweep(clock(), (accountId, traces) => {
        let spans = 0;
        for (const n of traces.values()) spans += n;
        metrics.count("expired_no_outcome_key", spans);
        logger.warn(
          { accountId, spans, traces: [...traces.keys()].slice(0, 20) },
          "OTLP spans rejected: their trace named no outcome key within the hold",
        );
      })
      .catch((error: unknown) => logger.warn({ err: error }, "OTLP hold sweep failed; the next one retries"))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
