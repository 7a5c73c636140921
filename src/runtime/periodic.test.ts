// Periodic: one run at a time, skipped ticks rather than queued ones, and a stop that waits for the run in hand.
import { describe, expect, it } from "vitest";
import { Periodic } from "./periodic.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("Periodic", () => {
  it("skips the ticks that find a run still going instead of queueing them", async () => {
    let runs = 0;
    let concurrent = 0;
    let most = 0;
    const loop = new Periodic(
      async () => {
        runs++;
        most = Math.max(most, ++concurrent);
        await sleep(50);
        concurrent--;
      },
      { intervalMs: 5 },
    );
    loop.start();
    await sleep(180);
    await loop.stop();
    expect(most).toBe(1);
    // About 36 ticks, of which a run spans ten or more: queued, they would have run one after another.
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(4);
  });

  it("waits in stop for the run in hand, and runs no more after it", async () => {
    let finished = 0;
    let started = 0;
    const loop = new Periodic(
      async () => {
        started++;
        await sleep(40);
        finished++;
      },
      { intervalMs: 5, runAtStart: true },
    );
    loop.start();
    expect(started).toBe(1);
    await sleep(10);
    await loop.stop();
    expect(finished).toBe(1);
    await sleep(30);
    expect(started).toBe(1);
  });

  it("reports a run that threw and keeps going", async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const loop = new Periodic(
      () => {
        runs++;
        throw new Error(`run ${runs}`);
      },
      { intervalMs: 5, onError: (error) => errors.push(error) },
    );
    loop.start();
    await sleep(40);
    await loop.stop();
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(errors).toHaveLength(runs);
  });
});
