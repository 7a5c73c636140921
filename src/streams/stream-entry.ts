// A shard stream entry: the events one group-commit call appended together, as a msgpack array of bin
// items, each one packed EventEnvelope, in send order. The ingress frames the items (frameEvents) and
// lua/enqueue.lua puts the array header in front of those it appends; the worker reads them back with
// entryEvents.
import { msgpack, packOwned } from "../codec/msgpack.js";

/** The stream entry field holding the events. */
export const ENTRY_FIELD = "events";

/** The most bytes a bin item's header takes (bin 32). */
const MAX_BIN_HEADER = 5;

function binHeaderLength(bytes: number): number {
  return bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5;
}

/** Writes the header of a bin item of `n` bytes at `at`; where its bytes go. */
function writeBinHeader(into: Buffer, at: number, n: number): number {
  if (n < 0x100) {
    into[at] = 0xc4;
    into[at + 1] = n;
    return at + 2;
  }
  if (n < 0x10000) {
    into[at] = 0xc5;
    into.writeUInt16BE(n, at + 1);
    return at + 3;
  }
  into[at] = 0xc6;
  into.writeUInt32BE(n, at + 1);
  return at + 5;
}

/** The payloads as consecutive msgpack bin items: one copy, so a run of events is one script argument. */
export function frameEvents(payloads: readonly Buffer[]): Buffer {
  let total = 0;
  for (const payload of payloads) total += binHeaderLength(payload.length) + payload.length;
  const framed = Buffer.allocUnsafe(total);
  let at = 0;
  for (const payload of payloads) {
    at = writeBinHeader(framed, at, payload.length);
    at += payload.copy(framed, at);
  }
  return framed;
}

/** A packed event and its frame: `framed` is its bin item (header, then `payload`, a view into it). */
export interface FramedPayload {
  framed: Buffer;
  payload: Buffer;
}

/** `value` packed as a bin item in one copy: a run of one such event is its own script argument, not copied again. */
export function packFramed(value: unknown): FramedPayload {
  const spaced = packOwned(value, MAX_BIN_HEADER);
  const n = spaced.length - MAX_BIN_HEADER;
  const framed = spaced.subarray(MAX_BIN_HEADER - binHeaderLength(n));
  return { framed, payload: framed.subarray(writeBinHeader(framed, 0, n)) };
}

/** A run of events as one script argument: a single event packed with its frame goes as it is, others are framed. */
export function frameRun(items: readonly { payload: Buffer; framed?: Buffer | undefined }[]): Buffer {
  if (items.length === 1 && items[0]!.framed !== undefined) return items[0]!.framed;
  return frameEvents(items.map((item) => item.payload));
}

/**
 * The packed envelopes of an entry's value, in order (views into `value`, not copies), or undefined when
 * the value is not an array of byte strings: something other than the ingress wrote it.
 */
export function entryEvents(value: Buffer): Buffer[] | undefined {
  let items: unknown;
  try {
    items = msgpack.unpack(value);
  } catch {
    return undefined;
  }
  if (!Array.isArray(items) || !items.every((item): item is Buffer => Buffer.isBuffer(item))) return undefined;
  return items;
}
