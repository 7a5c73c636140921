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

export function packNotification(notification: Notification): Buffer {
  return msgpack.pack([notification.kind, notification.accountId, notification.bytes]);
}

export function unpackNotification(bytes: Buffer): Notification {
  const [kind, accountId, inner] = msgpack.unpack(bytes) as [NotificationKind, string, Buffer | Uint8Array];
  return { kind, accountId, bytes: Buffer.isBuffer(inner) ? inner : Buffer.from(inner) };
}
