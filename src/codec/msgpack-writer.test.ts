import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { msgpack } from "./msgpack.js";
import { MsgpackWriter, WriterPool } from "./msgpack-writer.js";

/** What the writer wrote, as any msgpack reader sees it. */
function read(out: MsgpackWriter): unknown {
  return msgpack.unpack(out.bytes());
}

describe("MsgpackWriter", () => {
  it.each([
    0,
    1,
    127,
    128,
    255,
    256,
    65_535,
    65_536,
    0xffffffff,
    0x100000000,
    Number.MAX_SAFE_INTEGER,
    -1,
    -32,
    -33,
    -128,
    -129,
    -0x80000000,
    -0x80000001,
    Number.MIN_SAFE_INTEGER,
    0.5,
    -2.25,
    1e300,
    2 ** 60,
  ])("writes the number %d as msgpack reads it back", (n) => {
    const out = new MsgpackWriter();
    out.number(n);
    expect(read(out)).toBe(n);
  });

  // Each str header class (fixstr, 8, 16 and 32 bit) at its edges, in ASCII and in characters of two and three bytes.
  it.each([0, 1, 10, 11, 31, 32, 100, 255, 256, 65_535, 65_536, 100_000])("writes a text of %i characters", (n) => {
    for (const unit of ["a", "é", "€"]) {
      const text = unit.repeat(n);
      const out = new MsgpackWriter(Buffer.allocUnsafe(8));
      out.string(text);
      expect(read(out)).toBe(text);
    }
  });

  it("writes any text, number and list as msgpack reads them back", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.string({ unit: "grapheme" }), fc.integer(), fc.double({ noNaN: true }), fc.maxSafeInteger()),
        ),
        (values) => {
          const out = new MsgpackWriter(Buffer.allocUnsafe(4));
          out.list(values);
          expect(read(out)).toEqual(values.map((v) => (Object.is(v, -0) ? 0 : v)));
        },
      ),
    );
  });

  it("writes bytes as a str whose body is the bytes, and arrays of every header size", () => {
    const out = new MsgpackWriter(Buffer.allocUnsafe(16));
    const at = out.array32Placeholder();
    const blob = Buffer.from([0, 1, 0xff, 0xc0, 0x80]);
    out.blob(blob);
    out.array(16);
    for (let i = 0; i < 16; i++) out.nil();
    out.array(70_000);
    for (let i = 0; i < 70_000; i++) out.number(i % 3);
    out.patchArray32(at, 3);
    const [, nils, many] = msgpack.unpack(out.bytes()) as [string, null[], number[]];
    // The body follows the array header (5 bytes) and its own 1-byte header as it was given: what a Lua string of it holds.
    expect(out.bytes()[5]).toBe(0xa0 | blob.length);
    expect(out.bytes().subarray(6, 11).equals(blob)).toBe(true);
    expect(nils).toEqual(new Array(16).fill(null));
    expect(many).toEqual(Array.from({ length: 70_000 }, (_, i) => i % 3));
  });

  it("hands a buffer back for the next writer, and not one grown past what is kept", () => {
    const pool = new WriterPool(1);
    const first = pool.take();
    first.string("x".repeat(100));
    pool.give(first);
    const second = pool.take();
    expect(second.length).toBe(0);
    second.number(5);
    expect(msgpack.unpack(second.bytes())).toBe(5);
    const huge = new MsgpackWriter(Buffer.allocUnsafe(1));
    huge.raw(Buffer.alloc(17 * 1024 * 1024));
    expect(huge.release()).toBeUndefined();
  });
});
