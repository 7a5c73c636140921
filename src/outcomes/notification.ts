// What a commit tells the webhook dispatcher: a verdict, a dead letter or a charge, written to the shard's
// outbox in the same commit as the thing itself. It carries the thing as committed (not a rendering), so
// the dispatcher renders exactly what the API shows and derives the message id from the cause.
import { msgpack } from "../codec/msgpack.js";
import type { MsgpackWriter } from "../codec/msgpack-writer.js";

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

/** Headers' leading parts by kind, then account (no joined key built per verdict): a storm's verdicts mostly share one. */
const prefixes = new Map<NotificationKind, Map<string, Buffer>>();
const MAX_PREFIXES = 1000;

/**
 * The packed notification's bytes before its third field's bin header: the array marker, the kind and the
 * account, shared by every notification of one kind and account.
 */
export function notificationPrefix(kind: NotificationKind, accountId: string): Buffer {
  let ofKind = prefixes.get(kind);
  if (!ofKind) {
    ofKind = new Map();
    prefixes.set(kind, ofKind);
  }
  let prefix = ofKind.get(accountId);
  if (!prefix) {
    // A copy: msgpackr reuses its buffer for the next pack.
    prefix = Buffer.from(msgpack.pack([kind, accountId]));
    prefix[0] = ARRAY_OF_3;
    if (ofKind.size >= MAX_PREFIXES) ofKind.clear();
    ofKind.set(accountId, prefix);
  }
  return prefix;
}

/**
 * Writes the packed notification up to its bytes, as one str value of the writer: followed by `length`
 * bytes it is the whole notification (commit.lua joins the two, so the thing notified of goes to Redis
 * once per commit, not twice).
 */
export function writeNotificationHeader(
  out: MsgpackWriter,
  kind: NotificationKind,
  accountId: string,
  length: number,
): void {
  const strings = notificationPrefix(kind, accountId);
  const binBytes = length < 0x100 ? 2 : length < 0x10000 ? 3 : 5;
  out.strHeader(strings.length + binBytes);
  out.raw(strings);
  if (length < 0x100) {
    out.byte(BIN8);
  } else if (length < 0x10000) {
    out.byte(BIN16);
    out.byte(length >> 8);
  } else {
    out.byte(BIN32);
    out.byte(length >>> 24);
    out.byte((length >> 16) & 0xff);
    out.byte((length >> 8) & 0xff);
  }
  out.byte(length & 0xff);
}

export function unpackNotification(bytes: Buffer): Notification {
  const [kind, accountId, inner] = msgpack.unpack(bytes) as [NotificationKind, string, Buffer | Uint8Array];
  return { kind, accountId, bytes: Buffer.isBuffer(inner) ? inner : Buffer.from(inner) };
}
