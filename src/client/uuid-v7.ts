// UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys minted later sort later and a
// fleet's keys never collide. The client mints one per event, so this is on its hottest path: the random
// bits come from a pool refilled by one randomFillSync call per 409 ids, and each id is written as ASCII
// into one buffer and read out as one flat string. (Slicing node's randomUUID() instead costs a string of
// many joined pieces that V8 must first flatten, about twice the work; Web Crypto adds a brand check.)
import { randomFillSync } from "node:crypto";

/** 10 random bytes per id: the first's low nibble and the second make rand_a (12 bits), the other 8 rand_b (62 bits, after the variant's 2). */
const RANDOM_BYTES_PER_ID = 10;
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;

const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");
/** "tttttttt-tttt-7rrr-vrrr-rrrrrrrrrrrr": the text of the id being written; its time part is kept per ms. */
const text = Buffer.from("00000000-0000-7000-8000-000000000000", "latin1");
let textMs = -1;

export function uuidv7(now: number = Date.now()): string {
  if (now !== textMs) {
    const hex = now.toString(16).padStart(12, "0").slice(-12);
    text.write(`${hex.slice(0, 8)}-${hex.slice(8)}`, 0, "latin1");
    textMs = now;
  }
  if (poolAt + RANDOM_BYTES_PER_ID > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let at = poolAt;
  poolAt += RANDOM_BYTES_PER_ID;
  // Position 14 holds the version nibble 7; rand_a's 12 bits follow it.
  text[15] = HEX_DIGITS[pool[at++]! & 0x0f]!;
  writeHexByte(16, pool[at++]!);
  // The variant: the top two bits of rand_b's first byte are 10.
  writeHexByte(19, (pool[at++]! & 0x3f) | 0x80);
  writeHexByte(21, pool[at++]!);
  for (let out = 24; out < 36; out += 2) writeHexByte(out, pool[at++]!);
  return text.toString("latin1", 0, 36);
}

function writeHexByte(at: number, byte: number): void {
  text[at] = HEX_DIGITS[byte >> 4]!;
  text[at + 1] = HEX_DIGITS[byte & 0x0f]!;
}
