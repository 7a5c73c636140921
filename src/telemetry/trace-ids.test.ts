// A trace id drawn ahead is the next root span's, once; forgotten, it is nobody's.
import { describe, expect, it } from "vitest";
import { TraceIds } from "./trace-ids.js";

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
