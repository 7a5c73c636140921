// JSON text written as bytes into one growing buffer: a large answer's numbers go in as digits, with no
// string per value and no encoding of the whole text at the end.

/** ASCII text turned into bytes once, to be copied wherever it recurs. */
export function asciiBytes(text: string): Buffer {
  return Buffer.from(text, "latin1");
}

export class JsonBytes {
  private buffer: Buffer;
  private at = 0;

  constructor(expectedBytes: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(expectedBytes, 1024));
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  /** Bytes made by asciiBytes. */
  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buffer.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** One ASCII character's code. */
  byte(code: number): void {
    this.room(1);
    this.buffer[this.at++] = code;
  }

  /** Text as it is (already JSON: a JSON.stringify of a small part, or a constant). */
  text(text: string): void {
    this.room(text.length * 3);
    this.at += this.buffer.write(text, this.at, "utf8");
  }

  /** A number as JSON.stringify writes it; a whole one below 2^53 digit by digit. */
  number(value: number): void {
    const digit = value | 0;
    if (digit === value && digit >= 0 && digit < 10) {
      // Most counts of an hour are one digit; -0 is written 0, as JSON.stringify writes it.
      this.room(1);
      this.buffer[this.at++] = 0x30 + digit;
      return;
    }
    if (!Number.isSafeInteger(value) || value < 0) return this.text(JSON.stringify(value));
    this.room(16);
    const buffer = this.buffer;
    let end = this.at;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) end++;
    this.at = end + 1;
    let rest = value;
    do {
      buffer[end--] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
  }

  /** What was written, sharing the buffer's memory. */
  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}
