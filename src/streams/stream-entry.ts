// A shard stream entry: the events one group-commit call appended together, as a msgpack array of bin
// items, each one packed EventEnvelope, in send order. The ingress frames the items (frameEvents) and
// lua/enqueue.lua puts the array header in front of those it appends; the worker reads them back with
// entryEvents.
import { msgpack } from "../codec/msgpack.js";

/** The stream entry field holding the events. */
export const ENTRY_FIELD = "events";

function binHeaderLength(bytes: number): number {
  return bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5;
}

/** The payloads as consecutive msgpack bin items: one copy, so a run of events is one script argument. */
export function frameEvents(payloads: readonly Buffer[]): Buffer {
  let total = 0;
  for (const payload of payloads) total += binHeaderLength(payload.length) + payload.length;
  const framed = Buffer.allocUnsafe(total);
  let at = 0;
  for (const payload of payloads) {
    const n = payload.length;
    if (n < 0x100) {
      framed[at++] = 0xc4;
      framed[at++] = n;
    } else if (n < 0x10000) {
      framed[at++] = 0xc5;
      framed.writeUInt16BE(n, at);
      at += 2;
    } else {
      framed[at++] = 0xc6;
      framed.writeUInt32BE(n, at);
      at += 4;
    }
    at += payload.copy(framed, at);
  }
  return framed;
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
