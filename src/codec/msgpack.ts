// The msgpack codec of everything Verdict stores in Redis (events, snapshots, dead letters, script
// arguments): standard msgpack only (arrays, maps, bin), no msgpackr record extension, so any msgpack
// reader (redis-cli tooling, cmsgpack inside Lua for script arguments) can read what is written.
import { Packr, RESERVE_START_SPACE, RESET_BUFFER_MODE } from "msgpackr";

export const msgpack = new Packr({ useRecords: false, moreTypes: false });

/**
 * `value` packed into a buffer of its own, at its size, after `headroom` bytes (1 to 255) left for the caller;
 * the packer's position rewound. Left where it ended, msgpackr's shared buffer, grown to four times the three
 * bytes per character it reserves for a string (3 MB for a 250 KB value), moved to a new one every few large
 * values, each kept alive by every result packed into it.
 */
export function packOwned(value: unknown, headroom: number): Buffer {
  return Buffer.from(msgpack.pack(value, RESET_BUFFER_MODE | RESERVE_START_SPACE | headroom));
}

/** The bytes `value` packs to; nothing of the packing is kept. */
export function packedBytes(value: unknown): number {
  return msgpack.pack(value, RESET_BUFFER_MODE).length;
}
