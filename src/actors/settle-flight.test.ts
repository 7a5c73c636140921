// A settle's commits with one in flight: the next is sent only once the one before committed, and what a
// commit threw reaches the settle.
import { describe, expect, it } from "vitest";
import { SettleFlight } from "./settle-flight.js";

function deferred(): { promise: Promise<boolean>; resolve: (ok: boolean) => void; reject: (e: Error) => void } {
  let resolve!: (ok: boolean) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<boolean>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("SettleFlight", () => {
  it("sends the first commit at once and the next only after the first committed", async () => {
    const flight = new SettleFlight();
    const first = deferred();
    const sent: string[] = [];
    expect(
      await flight.send(() => {
        sent.push("first");
        return first.promise;
      }),
    ).toBe(true);
    expect(sent).toEqual(["first"]);
    const second = flight.send(() => {
      sent.push("second");
      return Promise.resolve(true);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["first"]);
    first.resolve(true);
    expect(await second).toBe(true);
    expect(sent).toEqual(["first", "second"]);
    expect(await flight.landed()).toBe(true);
  });

  it("does not send the next page's commit when the one in flight did not commit", async () => {
    const flight = new SettleFlight();
    await flight.send(() => Promise.resolve(false));
    let sent = false;
    expect(
      await flight.send(() => {
        sent = true;
        return Promise.resolve(true);
      }),
    ).toBe(false);
    expect(sent).toBe(false);
    expect(await flight.landed()).toBe(true);
  });

  it("throws what the commit in flight threw, when it is waited for, and never leaves it unhandled", async () => {
    const flight = new SettleFlight();
    const first = deferred();
    await flight.send(() => first.promise);
    const unhandled: unknown[] = [];
    const track = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", track);
    first.reject(new Error("connection lost"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off("unhandledRejection", track);
    expect(unhandled).toEqual([]);
    await expect(flight.landed()).rejects.toThrow("connection lost");
  });
});
