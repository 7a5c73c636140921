// A notification from the outbox as a webhook message: its event type, its id (derived from its cause, so
// a commit redone after a crash or failover makes the same id), the outcome it is about (ordering), and
// the body `{"type", "timestamp", "data"}` with `data` exactly as the API shows the thing.
import { createHash } from "node:crypto";
import { presentOutcome } from "../outcomes/present-outcome.js";
import type { ChargeRecord } from "../outcomes/charge.js";
import { unpackDeadLetter } from "../outcomes/dead-letter.js";
import type { Notification } from "../outcomes/notification.js";
import { unpackOutcome } from "../outcomes/outcome-record.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import type { WebhookEventType } from "../records/webhook-endpoint.js";
import { presentDeadLetter } from "../stores/dead-letter-store.js";

export interface RenderedMessage {
  id: string;
  type: WebhookEventType;
  accountId: string;
  /** The outcome ref: messages about one outcome go out in commit order. */
  order: string;
  body: string;
}

/** `msg_` + 32 hex digits of the SHA-256 of the cause. */
export function messageIdOf(...cause: string[]): string {
  return `msg_${createHash("sha256").update(cause.join("\u0000")).digest("hex").slice(0, 32)}`;
}

function body(type: WebhookEventType, at: number, data: unknown): string {
  return JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
}

/** A notification's event type when it is known without reading its record (an outcome's needs its status). */
export function typeWithoutRecord(notification: Notification): WebhookEventType | undefined {
  return notification.kind === "dead_letter"
    ? "dead_letter.created"
    : notification.kind === "charge"
      ? "charge.created"
      : undefined;
}

/**
 * `shard` and `appendedId` (the stream id of the dead letter or charge the commit appended just before the
 * notification) complete a dead letter's id as the DLQ lists it.
 */
export function renderNotification(notification: Notification, shard: number, appendedId: string): RenderedMessage {
  switch (notification.kind) {
    case "outcome": {
      const record = unpackOutcome(notification.bytes);
      const type: WebhookEventType = record.status === "CONFIRMED" ? "outcome.confirmed" : "outcome.failed";
      const at = record.verdictAt ?? 0;
      return {
        id: messageIdOf("outcome", record.accountId, record.key, record.status),
        type,
        accountId: record.accountId,
        order: outcomeRef(record.accountId, record.key),
        body: body(type, at, presentOutcome(record, at)),
      };
    }
    case "dead_letter": {
      const record = unpackDeadLetter(notification.bytes);
      const view = presentDeadLetter({ shard, entryId: appendedId, record });
      const accountId = record.event.accountId;
      return {
        id: messageIdOf("dead_letter", accountId, record.source),
        type: "dead_letter.created",
        accountId,
        order: outcomeRef(accountId, record.event.outcomeKey),
        body: body("dead_letter.created", Date.parse(view.dead_lettered_at), view),
      };
    }
    case "charge": {
      const charge = JSON.parse(notification.bytes.toString()) as ChargeRecord;
      const { accountId } = notification;
      return {
        id: messageIdOf("charge", accountId, charge.id),
        type: "charge.created",
        accountId,
        order: outcomeRef(accountId, charge.outcome_key),
        body: body("charge.created", Date.parse(charge.confirmed_at), charge),
      };
    }
  }
}
