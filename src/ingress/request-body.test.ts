import { describe, expect, it } from "vitest";
import { BodyTooLarge, parseBody, readBody, type BodyReadTarget } from "./request-body.js";
import type { HttpResponse } from "./uws.js";

/** A response whose body arrives as `chunks`, each an ArrayBuffer uWS would reuse (zeroed after its call). */
function sending(chunks: string[]): BodyReadTarget {
  const res = {
    onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void) {
      chunks.forEach((text, i) => {
        const reused = new Uint8Array(Buffer.from(text)).buffer;
        handler(reused, i === chunks.length - 1);
        new Uint8Array(reused).fill(0);
      });
    },
  };
  return { res: res as unknown as HttpResponse };
}

describe("readBody", () => {
  const body = ['{"events":', '[{"a":1}', "]}"];
  const whole = body.join("");

  it.each([
    ["no declared length", undefined],
    ["the declared length", whole.length],
    ["a declared length shorter than what came", 5],
    ["a declared length longer than what came", whole.length + 7],
  ])("joins the chunks as they were sent with %s", async (_, declared) => {
    const bytes = await readBody(sending(body), 1024, declared);
    expect(bytes.toString()).toBe(whole);
    expect(bytes.length).toBe(whole.length);
  });

  it("reads a body of one chunk, and an empty one", async () => {
    expect((await readBody(sending([whole]), 1024, whole.length)).toString()).toBe(whole);
    expect((await readBody(sending([""]), 1024, 0)).length).toBe(0);
  });

  it("refuses past the limit whatever length was declared", async () => {
    await expect(readBody(sending(body), whole.length - 1, whole.length - 1)).rejects.toBeInstanceOf(BodyTooLarge);
    await expect(readBody(sending(body), whole.length - 1)).rejects.toBeInstanceOf(BodyTooLarge);
  });

  it("reuses a large body's buffer once its JSON is parsed, and only then", async () => {
    const json = (fill: string) => JSON.stringify({ value: fill.repeat(100_000) });
    const first = await readBody(sending([json("a")]), 256 * 1024, json("a").length);
    expect(parseBody(first)).toEqual({ value: "a".repeat(100_000) });
    const second = await readBody(sending([json("b")]), 256 * 1024, json("b").length);
    expect(second.buffer).toBe(first.buffer);
    const third = await readBody(sending([json("c")]), 256 * 1024, json("c").length);
    expect(third.buffer).not.toBe(second.buffer);
    expect(parseBody(second)).toEqual({ value: "b".repeat(100_000) });
    expect(parseBody(third)).toEqual({ value: "c".repeat(100_000) });
    expect(() => parseBody(Buffer.from("{"))).toThrow("request body is not valid JSON");
  });
});
