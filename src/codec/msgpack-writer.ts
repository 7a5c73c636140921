// Writes standard msgpack value by value into one growing buffer, for an argument built from many small
// parts (a shard commit's operations): no array of values is built first only to be encoded afterwards.
// Byte strings go out as msgpack str (Redis's cmsgpack has no bin types; Lua strings hold any bytes).

/** First size of a writer's buffer; it doubles as needed and is kept for the writer's next use. */
const INITIAL_BYTES = 64 * 1024;
/** Buffers given back larger than this are dropped, so one huge commit does not pin its memory. */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;

function strHeaderBytes(length: number): number {
  return length < 32 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 5;
}

export class MsgpackWriter {
  private buffer: Buffer;
  private at = 0;

  constructor(buffer?: Buffer) {
    this.buffer = buffer ?? Buffer.allocUnsafe(INITIAL_BYTES);
  }

  get length(): number {
    return this.at;
  }

  /** The bytes written so far: a view of the writer's buffer, valid until the writer is written to again. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  /** The buffer, for another writer to start with (see WriterPool), unless it grew too large to keep. */
  release(): Buffer | undefined {
    return this.buffer.length <= MAX_KEPT_BYTES ? this.buffer : undefined;
  }

  private room(n: number): void {
    if (this.at + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.at + n) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  /** An array header whose length is filled in later by `patchArray32`; returns its position. */
  array32Placeholder(): number {
    this.room(5);
    const at = this.at;
    this.buffer[at] = 0xdd;
    this.at += 5;
    return at;
  }

  patchArray32(at: number, length: number): void {
    this.buffer.writeUInt32BE(length, at + 1);
  }

  array(length: number): void {
    this.room(5);
    if (length < 16) this.buffer[this.at++] = 0x90 | length;
    else if (length < 0x10000) {
      this.buffer[this.at] = 0xdc;
      this.buffer.writeUInt16BE(length, this.at + 1);
      this.at += 3;
    } else {
      this.buffer[this.at] = 0xdd;
      this.buffer.writeUInt32BE(length, this.at + 1);
      this.at += 5;
    }
  }

  nil(): void {
    this.room(1);
    this.buffer[this.at++] = 0xc0;
  }

  /** A number: an integer of up to 32 bits in its shortest form, anything else as a float 64. */
  number(n: number): void {
    this.room(9);
    const b = this.buffer;
    if (!Number.isInteger(n)) {
      b[this.at] = 0xcb;
      b.writeDoubleBE(n, this.at + 1);
      this.at += 9;
    } else if (n >= 0 && n < 0x80) {
      b[this.at++] = n;
    } else if (n < 0 && n >= -32) {
      b[this.at++] = n & 0xff;
    } else if (n >= 0 && n <= 0xffffffff) {
      b[this.at] = 0xce;
      b.writeUInt32BE(n, this.at + 1);
      this.at += 5;
    } else if (n < 0 && n >= -0x80000000) {
      b[this.at] = 0xd2;
      b.writeInt32BE(n, this.at + 1);
      this.at += 5;
    } else {
      // Past 32 bits as a float 64, as msgpackr writes them: exact for safe integers, and read back as a
      // number (not a BigInt) by msgpackr and cmsgpack alike.
      b[this.at] = 0xcb;
      b.writeDoubleBE(n, this.at + 1);
      this.at += 9;
    }
  }

  /** The header of a str of `length` bytes, which the caller writes next (see `raw`). */
  strHeader(length: number): void {
    this.room(5);
    const b = this.buffer;
    if (length < 32) b[this.at++] = 0xa0 | length;
    else if (length < 0x100) {
      b[this.at] = 0xd9;
      b[this.at + 1] = length;
      this.at += 2;
    } else if (length < 0x10000) {
      b[this.at] = 0xda;
      b.writeUInt16BE(length, this.at + 1);
      this.at += 3;
    } else {
      b[this.at] = 0xdb;
      b.writeUInt32BE(length, this.at + 1);
      this.at += 5;
    }
  }

  /** A text as a UTF-8 str. */
  string(s: string): void {
    // Written after a header sized for one byte per character (ASCII: keys, ids, operation names); a text
    // whose UTF-8 needs a longer header is moved along to make room for it.
    this.room(s.length * 3 + 5);
    const headerAt = this.at;
    const guessed = strHeaderBytes(s.length);
    const written = this.buffer.write(s, headerAt + guessed, "utf8");
    const actual = strHeaderBytes(written);
    if (actual !== guessed)
      this.buffer.copy(this.buffer, headerAt + actual, headerAt + guessed, headerAt + guessed + written);
    this.strHeader(written);
    this.at += written;
  }

  /** Bytes as a str value. */
  blob(bytes: Uint8Array): void {
    this.strHeader(bytes.length);
    this.raw(bytes);
  }

  /** Bytes as they are: the body of a str whose header was written. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buffer.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** Bytes given one at a time (a header's few), as they are. */
  byte(value: number): void {
    this.room(1);
    this.buffer[this.at++] = value;
  }

  /** An array of texts and numbers. */
  list(values: readonly (string | number)[]): void {
    this.array(values.length);
    for (const value of values) {
      if (typeof value === "number") this.number(value);
      else this.string(value);
    }
  }
}

/** Buffers of finished writers, handed to new ones: a shard's commits reuse one another's memory. */
export class WriterPool {
  private readonly free: Buffer[] = [];

  constructor(private readonly keep = 32) {}

  take(): MsgpackWriter {
    return new MsgpackWriter(this.free.pop());
  }

  /** Gives the writer's buffer back; its bytes must not be used after this. */
  give(writer: MsgpackWriter): void {
    const buffer = writer.release();
    if (buffer && this.free.length < this.keep) this.free.push(buffer);
  }
}
