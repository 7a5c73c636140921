// A reader of the protobuf wire format, enough for the few OTLP messages the ingress decodes. One cursor
// walks the whole body; an embedded message is read up to its end offset, with no reader object per message.
import { UndecodableBody } from "./spans.js";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;
/** Longest text string() looks up among those read before, and how many it keeps (a power of two). */
const SHORT = 32;
const SLOTS = 128;
/**
 * Buffer's own slice decoders, which Buffer#toString calls after checking its arguments: they build one flat
 * string in C++, where a string built in JS by parts is a rope that every later regexp, hash, compare or
 * msgpack write walks piece by piece (ids reach all of those).
 */
type Slicing = Buffer & { utf8Slice(start: number, end: number): string; hexSlice(start: number, end: number): string };

/** A cursor over the body; every read checks its bound, so truncated input throws UndecodableBody. */
export class ProtoReader {
  pos = 0;
  /** Short texts read (string()): where each slot's bytes start, their length (0: none yet), the string. */
  private readonly shortStarts = new Int32Array(SLOTS);
  private readonly shortLengths = new Int32Array(SLOTS);
  private readonly shortTexts = new Array<string>(SLOTS);

  constructor(readonly buf: Buffer) {}

  /** A varint as a double: exact up to 2^53, which covers tags, lengths and enums. */
  varint(end: number): number {
    const buf = this.buf;
    let byte = this.pos < end ? buf[this.pos++]! : outOfBounds();
    if (byte < 0x80) return byte;
    let result = byte & 0x7f;
    let scale = 128;
    for (let i = 1; i < 10; i++) {
      byte = this.pos < end ? buf[this.pos++]! : outOfBounds();
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
    throw new UndecodableBody("a varint runs past 10 bytes");
  }

  /** An int64 varint, exact: a number when safe, else its decimal string. */
  int64(end: number): number | string {
    const start = this.pos;
    const approx = this.varint(end);
    if (approx <= Number.MAX_SAFE_INTEGER) return approx;
    let value = 0n;
    let shift = 0n;
    for (let p = start; p < this.pos; p++) {
      value |= BigInt(this.buf[p]! & 0x7f) << shift;
      shift += 7n;
    }
    const signed = BigInt.asIntN(64, value);
    return Number.isSafeInteger(Number(signed)) ? Number(signed) : signed.toString();
  }

  /** A fixed64 as a double (timestamps in nanoseconds). */
  fixed64(end: number): number {
    if (this.pos + 8 > end) outOfBounds();
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * TWO_32 + lo;
  }

  double(end: number): number {
    if (this.pos + 8 > end) outOfBounds();
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** The end offset of a length-delimited field whose content starts at the cursor. */
  delimited(end: number): number {
    const length = this.varint(end);
    if (length > end - this.pos) outOfBounds();
    return this.pos + length;
  }

  /**
   * Text of at most SHORT bytes is looked up by its bytes among the last read into its slot, and the string
   * read then given again: a request's spans repeat their values (operation names, models, providers, tool
   * names), and one string each is less garbage and hashes once.
   */
  string(end: number): string {
    const stop = this.delimited(end);
    const start = this.pos;
    this.pos = stop;
    const n = stop - start;
    if (n === 0 || n > SHORT) return (this.buf as Slicing).utf8Slice(start, stop);
    const buf = this.buf;
    const slot = (n * 31 + buf[start]! * 7 + buf[start + (n >> 1)]! * 3 + buf[stop - 1]!) & (SLOTS - 1);
    const seen = this.shortStarts[slot]!;
    if (this.shortLengths[slot] === n) {
      let i = 0;
      while (i < n && buf[start + i] === buf[seen + i]) i++;
      if (i === n) return this.shortTexts[slot]!;
    }
    const text = (buf as Slicing).utf8Slice(start, stop);
    this.shortStarts[slot] = start;
    this.shortLengths[slot] = n;
    this.shortTexts[slot] = text;
    return text;
  }

  hex(end: number): string {
    const stop = this.delimited(end);
    const start = this.pos;
    this.pos = stop;
    return (this.buf as Slicing).hexSlice(start, stop);
  }

  base64(end: number): string {
    const stop = this.delimited(end);
    const text = this.buf.toString("base64", this.pos, stop);
    this.pos = stop;
    return text;
  }

  /** Skips a field of an unknown number: newer senders may add fields. */
  skip(wireType: number, end: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint(end);
        return;
      case WIRE_FIXED64:
        this.advance(8, end);
        return;
      case WIRE_BYTES:
        this.pos = this.delimited(end);
        return;
      case WIRE_FIXED32:
        this.advance(4, end);
        return;
      default:
        throw new UndecodableBody(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number, end: number): void {
    if (this.pos + n > end) outOfBounds();
    this.pos += n;
  }
}

/**
 * Ids of one kind read one after another from one body: an id whose bytes are the previous one's is given
 * the previous string. A trace's spans mostly come together, its children share a parent, and the one
 * string then also hashes once for every map the ingest keys by trace.
 */
export class RepeatedHex {
  private start = 0;
  private stop = 0;
  private text = "";

  read(r: ProtoReader, end: number): string {
    const stop = r.delimited(end);
    const start = r.pos;
    r.pos = stop;
    const n = stop - start;
    if (n > 0 && n === this.stop - this.start) {
      let i = 0;
      while (i < n && r.buf[start + i] === r.buf[this.start + i]) i++;
      if (i === n) return this.text;
    }
    this.start = start;
    this.stop = stop;
    this.text = (r.buf as Slicing).hexSlice(start, stop);
    return this.text;
  }
}

function outOfBounds(): never {
  throw new UndecodableBody("the protobuf message is truncated");
}
