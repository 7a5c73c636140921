// UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys minted later sort later and a
// fleet's keys never collide. Built on Node's native randomUUID (a v4: 122 random bits, variant 10, drawn
// from a cached random pool) with its first 48 bits replaced by the time and its version nibble by 7, which
// is cheap enough per event (node:crypto's, not Web Crypto's, which adds a brand check per call).
import { randomUUID } from "node:crypto";

let prefixMs = -1;
let prefix = "";

export function uuidv7(now: number = Date.now()): string {
  if (now !== prefixMs) {
    const hex = now.toString(16).padStart(12, "0").slice(-12);
    prefix = `${hex.slice(0, 8)}-${hex.slice(8)}-7`;
    prefixMs = now;
  }
  // "xxxxxxxx-xxxx-4xxx-...": keep everything after the version nibble (12 random bits of rand_a, then the
  // variant and 62 random bits of rand_b).
  return prefix + randomUUID().slice(15);
}
