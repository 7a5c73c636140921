// A trace id drawn ahead is the next root span's, once; forgotten, it is nobody's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hexWord, TraceIds } from "./trace-ids.js";

describe("TraceIds", () => {
  it("gives the trace id drawn ahead to the next root span only", () => {
    const ids = new TraceIds();
    const ahead = ids.nextTraceId();
    expect(ids.nextTraceId()).toBe(ahead);
    expect(ids.generateTraceId()).toBe(ahead);
    expect(ids.generateTraceId()).not.toBe(ahead);
  });

  it("draws a fresh trace id after the one ahead is forgotten", () => {
    const ids = new TraceIds();
    const ahead = ids.nextTraceId();
    ids.forgetNextTraceId();
    expect(ids.generateTraceId()).not.toBe(ahead);
    expect(ids.nextTraceId()).not.toBe(ahead);
  });

  it("makes W3C ids: 32 and 16 lowercase hex digits", () => {
    const ids = new TraceIds();
    expect(ids.generateTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.generateSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("TraceIds.nextTraceIdAccumulation", () => {
  it("is the XOR of the 32-bit words of the id drawn ahead, which the next root span gets", () => {
    const ids = new TraceIds();
    for (let i = 0; i < 2000; i++) {
      const accumulation = ids.nextTraceIdAccumulation();
      const hex = ids.nextTraceId();
      const words = [0, 8, 16, 24].map((at) => Number.parseInt(hex.slice(at, at + 8), 16));
      expect(accumulation).toBe(words.reduce((a, w) => (a ^ w) >>> 0, 0));
      expect(ids.generateTraceId()).toBe(hex);
    }
  });
});

describe("hexWord", () => {
  it("writes any unsigned 32-bit word as toString(16) does, padded to 8 digits", () => {
    for (const word of [0, 1, 0xff, 0x7fffffff, 0x80000000, 0xffffffff])
      expect(hexWord(word)).toBe(word.toString(16).padStart(8, "0"));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        (word) => hexWord(word) === word.toString(16).padStart(8, "0"),
      ),
    );
  });
});
