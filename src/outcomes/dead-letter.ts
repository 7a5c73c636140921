// A dead letter: an accepted event that could not be applied, kept with its code so nothing disappears silently.
import { msgpack } from "../codec/msgpack.js";
import type { DeadLetterCode } from "../errors/codes.js";
import type { EventEnvelope } from "../streams/event-envelope.js";

/** What Redis keeps of an oversized event's properties (DeadLetterRecord.truncated). */
export interface TruncatedProperties {
  /** Size in bytes of the properties' JSON. */
  bytes: number;
  /** The first bytes of that JSON, at most the configured limit, cut at a character boundary. */
  prefix: string;
}

export interface DeadLetterRecord {
  code: DeadLetterCode;
  message: string;
  event: EventEnvelope;
  /** Processing attempts made before it was set aside (1 for business rejections). */
  attempts: number;
  /**
   * The delivery set aside, "<shard stream entry id>/<index in the entry>": unique within its shard, and
   * kept when a failed replay puts the letter back, so a replay can claim it (replay-claim.ts).
   */
  source: string;
  /**
   * Set when the event was too large to keep whole in Redis: its properties are left out of `event` and
   * only their prefix is here; the archive holds the whole letter.
   */
  truncated?: TruncatedProperties;
}

export function packDeadLetter(record: DeadLetterRecord): Buffer {
  return msgpack.pack(record);
}

export function unpackDeadLetter(bytes: Buffer): DeadLetterRecord {
  return msgpack.unpack(bytes) as DeadLetterRecord;
}

/**
 * The letter as Redis keeps it: itself when it packs to at most `maxBytes`, else without its event's
 * properties and with at most `maxBytes` of their JSON. The same function presents an archived (whole)
 * letter, so a letter reads the same before and after it moves.
 */
export function boundedLetter(record: DeadLetterRecord, packedBytes: number, maxBytes: number): DeadLetterRecord {
  if (packedBytes <= maxBytes || record.truncated !== undefined || record.event.properties === undefined) return record;
  const { properties, ...event } = record.event;
  const json = Buffer.from(JSON.stringify(properties));
  return { ...record, event, truncated: { bytes: json.length, prefix: utf8Prefix(json, maxBytes) } };
}

/** The longest prefix of UTF-8 `bytes` of at most `max` bytes that ends on a character boundary. */
function utf8Prefix(bytes: Buffer, max: number): string {
  if (bytes.length <= max) return bytes.toString("utf8");
  let end = max;
  // A continuation byte (10xxxxxx) at the cut means the character started before it: cut before that start.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
