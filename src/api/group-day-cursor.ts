// Walks a group's day as stored (msgpack triples, docs/insights.md) in place: the read adds each count
// where it belongs without building an array per day or a string per metric.

/** A position in one msgpack value; each read moves past what it read. */
export class GroupDayCursor {
  bytes: Buffer = Buffer.alloc(0);
  private at = 0;
  /** Where the last `str()` began and ended (its bytes, header excluded). */
  start = 0;
  end = 0;

  constructor(bytes?: Uint8Array) {
    if (bytes) this.wrap(bytes);
  }

  /** Starts over at the beginning of `bytes`: one cursor walks every value of a read. */
  wrap(bytes: Uint8Array): this {
    this.bytes = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = 0;
    return this;
  }

  private uint(size: number): number {
    const at = this.at;
    this.at += size;
    return this.bytes.readUIntBE(at, size);
  }

  /** An array's length (fixarray, array 16, array 32). */
  arrayLength(): number {
    const head = this.bytes[this.at++]!;
    if (head >= 0x90 && head <= 0x9f) return head - 0x90;
    if (head === 0xdc) return this.uint(2);
    if (head === 0xdd) return this.uint(4);
    throw new Error(`a group's day is not a msgpack array (0x${head.toString(16)})`);
  }

  /** A number in any msgpack integer or float form (cmsgpack and msgpackr pick the smallest). */
  number(): number {
    const bytes = this.bytes;
    const head = bytes[this.at++]!;
    if (head <= 0x7f) return head;
    if (head >= 0xe0) return head - 0x100;
    const at = this.at;
    switch (head) {
      case 0xcc:
        return this.uint(1);
      case 0xcd:
        return this.uint(2);
      case 0xce:
        return this.uint(4);
      case 0xcf:
        this.at += 8;
        return Number(bytes.readBigUInt64BE(at));
      case 0xd0:
        this.at += 1;
        return bytes.readInt8(at);
      case 0xd1:
        this.at += 2;
        return bytes.readInt16BE(at);
      case 0xd2:
        this.at += 4;
        return bytes.readInt32BE(at);
      case 0xd3:
        this.at += 8;
        return Number(bytes.readBigInt64BE(at));
      case 0xca:
        this.at += 4;
        return bytes.readFloatBE(at);
      case 0xcb:
        this.at += 8;
        return bytes.readDoubleBE(at);
    }
    throw new Error(`a group's day holds a non-number where a number belongs (0x${head.toString(16)})`);
  }

  /** Steps over a string, leaving its bytes between `start` and `end`. */
  str(): void {
    const head = this.bytes[this.at++]!;
    let length: number;
    if (head >= 0xa0 && head <= 0xbf) length = head - 0xa0;
    else if (head === 0xd9) length = this.uint(1);
    else if (head === 0xda) length = this.uint(2);
    else if (head === 0xdb) length = this.uint(4);
    else throw new Error(`a group's day holds a non-string where a string belongs (0x${head.toString(16)})`);
    this.start = this.at;
    this.at += length;
    this.end = this.at;
  }

  /** The text of the last `str()` from `offset` bytes into it. */
  text(offset = 0): string {
    return this.bytes.toString("utf8", this.start + offset, this.end);
  }
}
