// Turns a shard's outbox (the notifications the actors' commit wrote) into webhook messages for the
// endpoints that want them, oldest first, a page at a time. Only the shard's owner fans out, so each
// entry becomes its messages once; an entry that is not a notification is deleted rather than block the rest.
import { unpackNotification, type Notification } from "../outcomes/notification.js";
import type { WebhookEndpointRecord, WebhookEventType } from "../records/webhook-endpoint.js";
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

/** The account's enabled endpoints, kept in `known` for the page. */
async function enabledEndpoints(
  deps: FanOutDeps,
  known: Map<string, WebhookEndpointRecord[]>,
  accountId: string,
): Promise<WebhookEndpointRecord[]> {
  const enabled = (await deps.endpoints.all(accountId)).filter((endpoint) => endpoint.enabled);
  known.set(accountId, enabled);
  return enabled;
}

/** How many of the account's endpoints want `type`, and how many of those are offered it (not in `full`); once per page. */
function offeredTo(
  known: Map<string, { wanting: number; offered: number }>,
  enabled: readonly WebhookEndpointRecord[],
  accountId: string,
  type: WebhookEventType,
  full: ReadonlySet<string>,
): { wanting: number; offered: number } {
  const key = `${accountId}\n${type}`;
  let counts = known.get(key);
  if (!counts) {
    const wanting = enabled.filter((endpoint) => wantsEvent(endpoint, type));
    const offered = wanting.filter((endpoint) => !full.has(activeMember(accountId, endpoint.id))).length;
    counts = { wanting: wanting.length, offered };
    known.set(key, counts);
  }
  return counts;
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
    // By account: its enabled endpoints; by account and event type: how many want it and which of those are
    // offered it (not in `full`, which changes only between pages).
    const endpointsOf = new Map<string, WebhookEndpointRecord[]>();
    const offeredOf = new Map<string, { wanting: number; offered: number }>();
    const page: FanOut[] = [];
    // Entries that make no message: deleted in one command, not carried through the fan-out script.
    const deleted: string[] = [];
    let skipped = 0;
    for (const [rawId, fields] of entries) {
      const outboxEntryId = rawId.toString();
      // Not what a commit writes (something else wrote the stream): it must not block the outbox.
      const unreadable = (error: unknown): void => {
        deps.logger.error({ err: error, shard, entry: outboxEntryId }, "webhook outbox entry is unreadable; deleted");
        deleted.push(outboxEntryId);
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
      const { accountId } = notification;
      const enabled = endpointsOf.get(accountId) ?? (await enabledEndpoints(deps, endpointsOf, accountId));
      // Most entries are for accounts without (enabled) endpoints: those are not rendered at all.
      if (enabled.length === 0) {
        deleted.push(outboxEntryId);
        continue;
      }
      // Nothing to render for a message whose every endpoint is at its backlog (a dead receiver's, as a rule).
      const type = typeWithoutRecord(notification);
      if (type !== undefined) {
        const offered = offeredTo(offeredOf, enabled, accountId, type, full);
        if (offered.offered === 0) {
          skipped += offered.wanting;
          deleted.push(outboxEntryId);
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
    if (deleted.length > 0) await client.xdel(keys.webhookOutbox(shard), ...deleted);
    skipped += await fanOutInCalls(page, full, (calls) => deps.messages.fanOut(shard, calls, Date.now()));
    if (skipped > 0) deps.metrics.messagesSkipped.inc(skipped);
    if (entries.length < OUTBOX_PAGE) return;
  }
}
