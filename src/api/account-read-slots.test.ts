import { describe, expect, it } from "vitest";
import { ApiError } from "../errors/api-error.js";
import { AccountReadSlots, WAITING_PER_SLOT } from "./account-read-slots.js";

/** A read that finishes when told to, and says when it started. */
function heldRead(): { read: () => Promise<string>; started: () => boolean; finish: (value: string) => void } {
  let started = false;
  let finish: (value: string) => void = () => {};
  const done = new Promise<string>((resolve) => (finish = resolve));
  return {
    read: () => {
      started = true;
      return done;
    },
    started: () => started,
    finish: (value) => finish(value),
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("AccountReadSlots", () => {
  it("runs an account's reads two at a time, the rest in the order they came", async () => {
    const slots = new AccountReadSlots(2);
    const reads = Array.from({ length: 5 }, heldRead);
    const answers = reads.map((held, i) => slots.run("a", held.read).then((value) => `${i}:${value}`));
    await turn();
    expect(reads.map((held) => held.started())).toEqual([true, true, false, false, false]);
    reads[1]!.finish("x");
    await turn();
    expect(reads.map((held) => held.started())).toEqual([true, true, true, false, false]);
    reads[0]!.finish("y");
    reads[2]!.finish("z");
    await turn();
    expect(reads.map((held) => held.started())).toEqual([true, true, true, true, true]);
    reads[3]!.finish("u");
    reads[4]!.finish("v");
    expect(await Promise.all(answers)).toEqual(["0:y", "1:x", "2:z", "3:u", "4:v"]);
  });

  it("refuses a read with 429 QUOTA_EXCEEDED once the queue is full, and never another account's", async () => {
    const slots = new AccountReadSlots(2);
    const held = Array.from({ length: 2 + 2 * WAITING_PER_SLOT }, heldRead);
    const answers = held.map((read) => slots.run("a", read.read));
    const refused: unknown = await slots.run("a", heldRead().read).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      code: "QUOTA_EXCEEDED",
      status: 429,
      retryAfterSeconds: 1,
      quota: { name: "insight_reads", limit: 2 },
    });
    const other = heldRead();
    const otherAnswer = slots.run("b", other.read);
    await turn();
    expect(other.started()).toBe(true);
    other.finish("b");
    await expect(otherAnswer).resolves.toBe("b");
    for (const read of held) read.finish("a");
    await Promise.all(answers);
  });

  it("frees the slot of a read that failed", async () => {
    const slots = new AccountReadSlots(1);
    await expect(slots.run("a", () => Promise.reject(new Error("redis")))).rejects.toThrow("redis");
    const next = heldRead();
    const answer = slots.run("a", next.read);
    await turn();
    expect(next.started()).toBe(true);
    next.finish("ok");
    await expect(answer).resolves.toBe("ok");
  });
});
