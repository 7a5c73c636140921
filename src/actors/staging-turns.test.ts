// Large pieces of work each in a turn of their own: two waiters never run in the same event-loop iteration,
// so the loop polls for I/O between them.
import { describe, expect, it } from "vitest";
import { StagingTurns } from "./staging-turns.js";

describe("StagingTurns", () => {
  it("gives each waiter an event-loop iteration of its own, in the order they asked", async () => {
    // Counts the loop's iterations: an immediate set from an immediate runs in the next one.
    let iteration = 0;
    let counting = true;
    const count = (): void => {
      iteration++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const turns = new StagingTurns();
    const ran: [string, number][] = [];
    await Promise.all(["a", "b", "c"].map((name) => turns.next().then(() => void ran.push([name, iteration]))));
    counting = false;
    expect(ran.map(([name]) => name)).toEqual(["a", "b", "c"]);
    const [a, b, c] = ran.map(([, at]) => at);
    expect(b).toBeGreaterThan(a!);
    expect(c).toBeGreaterThan(b!);
  });
});
