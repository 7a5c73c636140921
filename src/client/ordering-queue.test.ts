import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NOT_ADMITTED, OrderingQueue, type Lane, type PendingEvent } from "./ordering-queue.js";

function pending(lane: Lane, seq: number): PendingEvent {
  return {
    event: undefined,
    json: "{}",
    idempotencyKey: undefined,
    bytes: 10,
    lane,
    next: undefined,
    attempts: 0,
    seq,
    traceparent: undefined,
    resolve: () => {},
    reject: () => {},
  };
}

/** What a driver may do next: track an event on one of a few outcomes, send a batch, or settle a sent one. */
type Step =
  | { kind: "push"; outcome: number }
  | { kind: "take"; max: number }
  | { kind: "settle"; which: number; failFrom: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("push" as const), outcome: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant("take" as const), max: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant("settle" as const), which: fc.nat(), failFrom: fc.nat({ max: 6 }) }),
);

describe("OrderingQueue", () => {
  it("sends each outcome's events in track order through retries, never two batches of one outcome at once", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const queue = new OrderingQueue(() => {});
        let seq = 0;
        const inFlight: PendingEvent[][] = [];
        /** Per outcome: the seqs accepted so far, which must be its seqs in order. */
        const accepted = new Map<string, number[]>();
        const tracked = new Map<string, number[]>();
        const check = (): void => {
          const busy = inFlight.flatMap((batch) => [...new Set(batch.map((e) => e.lane))]);
          expect(new Set(busy).size).toBe(busy.length);
        };
        for (const s of steps) {
          if (s.kind === "push") {
            const key = `o${s.outcome}`;
            const event = pending(queue.lane(key), seq++);
            tracked.set(key, [...(tracked.get(key) ?? []), event.seq]);
            queue.push(event);
          } else if (s.kind === "take") {
            const batch = queue.take(s.max, 1_000);
            expect(batch.length).toBeLessThanOrEqual(s.max);
            if (batch.length > 0) inFlight.push(batch);
            check();
          } else if (inFlight.length > 0) {
            const batch = inFlight.splice(s.which % inFlight.length, 1)[0]!;
            // Events of the batch from `failFrom` on fail (a lane's failure takes its later events with it, as
            // the cascade rule does); the rest are accepted; each lane is handed back with its failed events.
            const lanes = [...new Set(batch.map((e) => e.lane))];
            for (const lane of lanes) {
              const own = batch.map((e, i) => ({ e, i })).filter(({ e }) => e.lane === lane);
              const retry = own.filter(({ i }) => i >= s.failFrom).map(({ e }) => e);
              for (const { e, i } of own)
                if (i < s.failFrom) accepted.set(lane.key, [...(accepted.get(lane.key) ?? []), e.seq]);
              queue.settle(lane, retry, 0);
            }
          }
        }
        // Whatever is left settles in full.
        for (;;) {
          for (const batch of inFlight.splice(0))
            for (const e of batch) accepted.set(e.lane.key, [...(accepted.get(e.lane.key) ?? []), e.seq]);
          for (const lane of new Set(steps.flatMap((s) => (s.kind === "push" ? [queue.lane(`o${s.outcome}`)] : []))))
            if (lane.busy) queue.settle(lane, [], 0);
          const batch = queue.take(1_000, 1_000_000);
          if (batch.length === 0) break;
          inFlight.push(batch);
        }
        expect(queue.readyEvents).toBe(0);
        for (const [key, seqs] of tracked) expect(accepted.get(key)).toEqual(seqs);
      }),
      { numRuns: 300 },
    );
  });

  it("holds a lane with retried events back until its delay has passed", async () => {
    let woken = 0;
    const queue = new OrderingQueue(() => woken++);
    const lane = queue.lane("a");
    const first = pending(lane, 0);
    queue.push(first);
    const batch = queue.take(10, 1_000);
    queue.push(pending(lane, 1));
    queue.settle(lane, batch, 20);
    expect(queue.take(10, 1_000)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(woken).toBe(1);
    expect(queue.take(10, 1_000).map((e) => e.seq)).toEqual([0, 1]);
  });

  it("takes from ready lanes in the order they became ready, within the byte budget", () => {
    const queue = new OrderingQueue(() => {});
    for (const [key, seq] of [
      ["b", 0],
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      queue.push(pending(queue.lane(key), seq));
    expect(queue.readyEvents).toBe(4);
    // 11 bytes per event with its separator: 25 bytes carry two.
    expect(queue.take(10, 25).map((e) => e.seq)).toEqual([0, 2]);
    expect(queue.take(10, 1_000).map((e) => e.seq)).toEqual([1, 3]);
    expect(NOT_ADMITTED.length).toBe(0);
  });
});
