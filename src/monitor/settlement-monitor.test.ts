import { Writable } from "node:stream";
import { pino } from "pino";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SettlementMonitor } from "./settlement-monitor.js";

/** Keeps the event loop busy, as a long batch or a GC pause under load would. */
function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("SettlementMonitor", () => {
  afterEach(() => vi.restoreAllMocks());

  it("counts ticks missed while the event loop was busy, prints nothing itself, and keeps ticking", async () => {
    const registry = new Registry();
    const lines: string[] = [];
    const logger = pino(
      { level: "debug" },
      new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }),
    );
    const printed = [
      vi.spyOn(console, "warn"),
      vi.spyOn(console, "log"),
      vi.spyOn(console, "error"),
      vi.spyOn(console, "info"),
    ];
    let ticks = 0;
    const monitor = new SettlementMonitor({ requestTick: () => ticks++ }, registry, logger);
    monitor.start();
    try {
      await sleep(1_200);
      // Past node-cron's tolerance of one second: the ticks due meanwhile cannot run on time.
      block(3_500);
      const ticksBefore = ticks;
      await sleep(2_200);
      const missed = (await registry.getSingleMetric("verdict_monitor_ticks_missed_total")!.get()).values[0]!.value;
      expect(missed).toBeGreaterThanOrEqual(1);
      expect(ticks).toBeGreaterThan(ticksBefore);
      for (const spy of printed) expect(spy).not.toHaveBeenCalled();
      // A missed tick is counted, not logged line by line.
      expect(lines.filter((line) => line.includes("missed execution"))).toEqual([]);
    } finally {
      await monitor.stop();
    }
  });
});
