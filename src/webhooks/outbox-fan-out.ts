// Turns a shard's outbox (the notifications the actors' commit wrote) into webhook messages for the
// endpoints that want them, oldest first, a page at a time. Only the shard's owner fans out, so each
// entry becomes its messages once; an entry that is not a notification is deleted rather than block the rest.
import { unpackNotification, type Notification } from "../outcomes/notification.js";
import type { WebhookEndpointRecord } from "../records/webhook-endpoint.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Logger } from "../telemetry/logger.js";
import { wantsEvent, type WebhookEndpointStore } from "./endpoint-store.js";
import { fanOutInCalls } from "./fanout-calls.js";
import { activeMember, type FanOut, type WebhookMessageStore } from "./message-store.js";
import { renderNotification, typeWithoutRecord, type RenderedMessage } from "./payload.js";
import type { WebhookMetrics } from "./webhook-metrics.js";

const OUTBOX_PAGE = 100;

export interface FanOutDeps {
  client: RedisClient;
  keys: Keys;
  /** Whether this process holds the shard's lease now. */
  owns(shard: number): boolean;
  endpoints: WebhookEndpointStore;
  messages: WebhookMessageStore;
  logger: Logger;
  metrics: WebhookMetrics;
}

/** A stream entry's field by name. */
function streamField(fields: Buffer[], name: string): Buffer | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]!.toString() === name) return fields[i + 1];
  return undefined;
}

/** An outbox entry that makes no message: the page's fan-out call only deletes it. */
function onlyDeleted(outboxEntryId: string): FanOut {
  return { outboxEntryId, messageId: "", type: "", order: "", body: "", accountId: "", endpointIds: [] };
}

/**
 * Turns the shard's outbox entries into messages, oldest first, a page at a time in bounded calls
 * (fanout-calls.ts), until it is empty. An endpoint in `full` (active-set members), to which each call adds
 * those it found at their backlog, is offered none of the entries: a receiver that is down would otherwise
 * cost Redis a check per entry, and a call keys per entry, for messages it never gets. The caller decides how
 * long `full` is believed.
 */
export async function fanOutOutbox(
  deps: FanOutDeps,
  shard: number,
  stopped: () => boolean,
  full: Set<string>,
): Promise<void> {
  const { client, keys } = deps;
  for (;;) {
    if (stopped() || !deps.owns(shard)) return;
    const entries = (await client.xrangeBuffer(keys.webhookOutbox(shard), "-", "+", "COUNT", OUTBOX_PAGE)) as [
      Buffer,
      Buffer[],
    ][];
    if (entries.length === 0) return;
    const endpointsOf = new Map<string, Promise<WebhookEndpointRecord[]>>();
    const page: FanOut[] = [];
    let unrendered = 0;
    for (const [rawId, fields] of entries) {
      const outboxEntryId = rawId.toString();
      // Not what a commit writes (something else wrote the stream): it must not block the outbox.
      const unreadable = (error: unknown): void => {
        deps.logger.error({ err: error, shard, entry: outboxEntryId }, "webhook outbox entry is unreadable; deleted");
        page.push(onlyDeleted(outboxEntryId));
      };
      let notification: Notification;
      try {
        const bytes = streamField(fields, "d");
        if (!bytes) throw new Error("the entry has no notification");
        notification = unpackNotification(bytes);
      } catch (error) {
        unreadable(error);
        continue;
      }
      let endpoints = endpointsOf.get(notification.accountId);
      if (!endpoints) {
        endpoints = deps.endpoints.all(notification.accountId);
        endpointsOf.set(notification.accountId, endpoints);
      }
      const enabled = (await endpoints).filter((endpoint) => endpoint.enabled);
      // Most entries are for accounts without (enabled) endpoints: those are not rendered at all.
      if (enabled.length === 0) {
        page.push(onlyDeleted(outboxEntryId));
        continue;
      }
      // Nothing to render for a message whose every endpoint is at its backlog (a dead receiver's, as a rule).
      const type = typeWithoutRecord(notification);
      if (type !== undefined) {
        const targets = enabled.filter((endpoint) => wantsEvent(endpoint, type));
        if (targets.every((endpoint) => full.has(activeMember(notification.accountId, endpoint.id)))) {
          unrendered += targets.length;
          page.push(onlyDeleted(outboxEntryId));
          continue;
        }
      }
      let message: RenderedMessage;
      try {
        message = renderNotification(notification, shard, streamField(fields, "p")?.toString() ?? "");
      } catch (error) {
        unreadable(error);
        continue;
      }
      const targets = enabled.filter((endpoint) => wantsEvent(endpoint, message.type));
      page.push({
        outboxEntryId,
        messageId: message.id,
        type: message.type,
        order: message.order,
        body: message.body,
        accountId: message.accountId,
        endpointIds: targets.map((endpoint) => endpoint.id),
      });
    }
    const skipped =
      unrendered + (await fanOutInCalls(page, full, (calls) => deps.messages.fanOut(shard, calls, Date.now())));
    if (skipped > 0) deps.metrics.messagesSkipped.inc(skipped);
    if (entries.length < OUTBOX_PAGE) return;
  }
}
