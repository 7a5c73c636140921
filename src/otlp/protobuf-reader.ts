// A reader of the protobuf wire format, enough for the few OTLP messages the ingress decodes.
import { UndecodableBody } from "./spans.js";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

/** A cursor over one message's bytes; every read checks its bound, so truncated input throws UndecodableBody. */
export class ProtoReader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** A varint as a double: exact up to 2^53, which covers tags, lengths and enums. */
  varint(): number {
    const { buf, end } = this;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw truncated();
      const byte = buf[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
    throw new UndecodableBody("a varint runs past 10 bytes");
  }

  /** An int64 varint, exact: a number when safe, else its decimal string. */
  int64(): number | string {
    const start = this.pos;
    const approx = this.varint();
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
  fixed64(): number {
    if (this.pos + 8 > this.end) throw truncated();
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * TWO_32 + lo;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw truncated();
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** A length-delimited field's extent; the cursor moves past it. */
  bytes(): [start: number, end: number] {
    const length = this.varint();
    const start = this.pos;
    if (length > this.end - start) throw truncated();
    this.pos = start + length;
    return [start, this.pos];
  }

  string(): string {
    const [start, end] = this.bytes();
    return this.buf.toString("utf8", start, end);
  }

  hex(): string {
    const [start, end] = this.bytes();
    return this.buf.toString("hex", start, end);
  }

  /** A reader over an embedded message. */
  message(): ProtoReader {
    const [start, end] = this.bytes();
    return new ProtoReader(this.buf, start, end);
  }

  /** Skips a field of an unknown number: newer senders may add fields. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_BYTES:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        throw new UndecodableBody(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw truncated();
    this.pos += n;
  }
}

function truncated(): UndecodableBody {
  return new UndecodableBody("the protobuf message is truncated");
}
