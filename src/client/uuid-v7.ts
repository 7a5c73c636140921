// UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys minted later sort later and a
// fleet's keys never collide. Random bytes come from a pooled Web Crypto draw, cheap enough per event.

const POOL_BYTES = 16 * 256;
const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export function uuidv7(now: number = Date.now()): string {
  if (poolAt === POOL_BYTES) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const r = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  const ms = now.toString(16).padStart(12, "0").slice(-12);
  // Version 7 in the high nibble of byte 6, variant 0b10 in the top bits of byte 8.
  const b6 = HEX[0x70 | (r[6]! & 0x0f)]!;
  const b8 = HEX[0x80 | (r[8]! & 0x3f)]!;
  return `${ms.slice(0, 8)}-${ms.slice(8)}-${b6}${HEX[r[7]!]}-${b8}${HEX[r[9]!]}-${HEX[r[10]!]}${HEX[r[11]!]}${HEX[r[12]!]}${HEX[r[13]!]}${HEX[r[14]!]}${HEX[r[15]!]}`;
}
