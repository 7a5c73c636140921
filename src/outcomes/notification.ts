// What a commit tells the webhook dispatcher: a verdict, a dead letter or a charge, written to the shard's
// outbox in the same commit as the thing itself. It carries the thing as committed (not a rendering), so
// the dispatcher renders exactly what the API shows and derives the message id from the cause.
import { msgpack } from "../codec/msgpack.js";

export type NotificationKind = "outcome" | "dead_letter" | "charge";

export interface Notification {
  kind: NotificationKind;
  accountId: string;
  /** The packed outcome record at its verdict, the packed dead letter, or the charge as JSON. */
  bytes: Buffer;
}

/** msgpack's array-of-3 marker, and its bin 8, 16 and 32 markers. */
const ARRAY_OF_3 = 0x93;
const BIN8 = 0xc4;
const BIN16 = 0xc5;
const BIN32 = 0xc6;

/** Headers' leading parts by kind and account: a storm's verdicts mostly share one. */
const prefixes = new Map<string, Buffer>();
const MAX_PREFIXES = 1000;

function stringsOf(kind: NotificationKind, accountId: string): Buffer {
  const id = `${kind}\0${accountId}`;
  let prefix = prefixes.get(id);
  if (!prefix) {
    // A copy: msgpackr reuses its buffer for the next pack.
    prefix = Buffer.from(msgpack.pack([kind, accountId]));
    prefix[0] = ARRAY_OF_3;
    if (prefixes.size >= MAX_PREFIXES) prefixes.clear();
    prefixes.set(id, prefix);
  }
  return prefix;
}

/**
 * The packed notification up to its bytes: followed by `length` bytes it is the whole notification
 * (commit.lua joins the two, so the thing notified of goes to Redis once per commit, not twice).
 */
export function notificationHeader(kind: NotificationKind, accountId: string, length: number): Buffer {
  const strings = stringsOf(kind, accountId);
  let bin: Buffer;
  if (length < 0x100) bin = Buffer.from([BIN8, length]);
  else if (length < 0x10000) bin = Buffer.from([BIN16, length >> 8, length & 0xff]);
  else {
    bin = Buffer.alloc(5);
    bin[0] = BIN32;
    bin.writeUInt32BE(length, 1);
  }
  return Buffer.concat([strings, bin]);
}

export function unpackNotification(bytes: Buffer): Notification {
  const [kind, accountId, inner] = msgpack.unpack(bytes) as [NotificationKind, string, Buffer | Uint8Array];
  return { kind, accountId, bytes: Buffer.isBuffer(inner) ? inner : Buffer.from(inner) };
}
