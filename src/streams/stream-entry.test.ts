// The stream entry format: what the ingress frames reads back as the same payloads, at every bin size.
import { describe, expect, it } from "vitest";
import { msgpack } from "../codec/msgpack.js";
import { entryEvents, frameEvents, frameRun, packFramed } from "./stream-entry.js";

/** What lua/enqueue.lua writes for the framed runs it appends: a msgpack array header, then the runs. */
function entryValue(count: number, ...runs: Buffer[]): Buffer {
  const header = count < 16 ? Buffer.from([0x90 + count]) : Buffer.from([0xdc, count >> 8, count & 0xff]);
  return Buffer.concat([header, ...runs]);
}

describe("stream entry", () => {
  it("reads back framed payloads of every bin width, in order", () => {
    const payloads = [0, 1, 255, 256, 65_535, 65_536, 200_000].map((n, i) => Buffer.alloc(n, i + 1));
    const events = entryEvents(
      entryValue(payloads.length, frameEvents(payloads.slice(0, 3)), frameEvents(payloads.slice(3))),
    );
    expect(events?.map((e) => e.length)).toEqual(payloads.map((p) => p.length));
    events!.forEach((event, i) => expect(event.equals(payloads[i]!)).toBe(true));
  });

  it("frames exactly as msgpack encodes bin values", () => {
    const payloads = [3, 300, 70_000].map((n) => Buffer.alloc(n, 7));
    const framed = frameEvents(payloads);
    expect(framed.equals(Buffer.concat(payloads.map((p) => msgpack.pack(p))))).toBe(true);
  });

  it("packs a value with its frame as msgpack packs it and frameEvents frames it, at every bin width", () => {
    const earlier = msgpack.pack({ kept: "x".repeat(100) });
    const copy = Buffer.from(earlier);
    for (const value of [1, "x".repeat(300), { value: "y".repeat(70_000) }, ["é".repeat(100_000), null, 2]]) {
      const { framed, payload } = packFramed(value);
      expect(payload.equals(msgpack.pack(value))).toBe(true);
      expect(framed.equals(frameEvents([payload]))).toBe(true);
      expect(frameRun([{ payload, framed }])).toBe(framed);
      expect(frameRun([{ payload, framed }, { payload }]).equals(frameEvents([payload, payload]))).toBe(true);
    }
    // Packing in place leaves what the shared packer returned before as it was.
    expect(earlier.equals(copy)).toBe(true);
  });

  it("reads 20 events behind a 16-bit array header", () => {
    const payloads = Array.from({ length: 20 }, (_, i) => msgpack.pack({ i }));
    expect(entryEvents(entryValue(20, frameEvents(payloads)))?.map((e): unknown => msgpack.unpack(e))).toEqual(
      payloads.map((_, i) => ({ i })),
    );
  });

  it("refuses values that are not arrays of byte strings", () => {
    expect(entryEvents(Buffer.from("not msgpack at all \xc1"))).toBeUndefined();
    expect(entryEvents(msgpack.pack({ events: [] }))).toBeUndefined();
    expect(entryEvents(msgpack.pack(["a string, not bytes"]))).toBeUndefined();
  });
});
