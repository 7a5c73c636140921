// A shard stream entry: the events one group-commit call appended together (lua/enqueue.lua writes it),
// as a msgpack array of bin items, each one packed EventEnvelope, in send order.
import { msgpack } from "../redis/msgpack.js";

/** The stream entry field holding the events. */
export const ENTRY_FIELD = "events";

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
