// An account's webhook endpoints: records under the account's hash tag, with their signing secrets.
import { randomBytes } from "node:crypto";
import type { RecordStore, Page } from "../records/record-store.js";
import type { WebhookEndpointRecord, WebhookEventType } from "../records/webhook-endpoint.js";
import { newEndpointSecret } from "./signing.js";
import type { WebhookAccounts } from "./webhook-accounts.js";

/** How long a rotated-out secret keeps signing next to the new one. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** An endpoint as the API shows it (the secret only on creation and at `/secret`). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  event_types: WebhookEventType[] | null;
  description: string | null;
  enabled: boolean;
  created_at: string;
}

export function endpointView(record: WebhookEndpointRecord): WebhookEndpointView {
  return {
    id: record.id,
    url: record.url,
    event_types: record.event_types,
    description: record.description,
    enabled: record.enabled,
    created_at: record.created_at,
  };
}

/** The secrets that sign a message now: the current one, and the previous one during its overlap. */
export function liveSecrets(record: WebhookEndpointRecord, now: number): string[] {
  return record.previous_secret !== null && record.previous_secret_until !== null && now < record.previous_secret_until
    ? [record.secret, record.previous_secret]
    : [record.secret];
}

export function wantsEvent(record: WebhookEndpointRecord, type: WebhookEventType): boolean {
  return record.enabled && (record.event_types === null || record.event_types.includes(type));
}

export interface EndpointChanges {
  url?: string;
  event_types?: WebhookEventType[] | null;
  description?: string | null;
  enabled?: boolean;
}

export class WebhookEndpointStore {
  constructor(
    private readonly records: RecordStore,
    private readonly accounts: WebhookAccounts,
  ) {}

  async create(
    accountId: string,
    fields: { url: string; event_types: WebhookEventType[] | null; description: string | null },
    now: number,
  ): Promise<WebhookEndpointRecord> {
    const record: WebhookEndpointRecord = {
      id: `ep_${randomBytes(12).toString("hex")}`,
      url: fields.url,
      event_types: fields.event_types,
      description: fields.description,
      enabled: true,
      secret: newEndpointSecret(),
      previous_secret: null,
      previous_secret_until: null,
      created_at: new Date(now).toISOString(),
    };
    // Marked before the endpoint exists (and so before it is answered): every commit after the answer writes
    // the account's notifications to the outbox.
    await this.accounts.locked(accountId, async () => {
      await this.accounts.mark(accountId);
      await this.records.put(accountId, "webhook-endpoint", record.id, record);
    });
    return record;
  }

  get(accountId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    return this.records.get<WebhookEndpointRecord>(accountId, "webhook-endpoint", id);
  }

  all(accountId: string): Promise<WebhookEndpointRecord[]> {
    return this.records.all<WebhookEndpointRecord>(accountId, "webhook-endpoint");
  }

  list(accountId: string, limit: number, cursor: string | null): Promise<Page<WebhookEndpointRecord>> {
    return this.records.list<WebhookEndpointRecord>(accountId, "webhook-endpoint", limit, cursor);
  }

  /**
   * Applies changes to an existing endpoint; undefined when there is none. Read-modify-write: two
   * concurrent PATCHes of one endpoint may lose one's fields (last writer wins), never the secret.
   */
  async update(
    accountId: string,
    id: string,
    change: (record: WebhookEndpointRecord) => WebhookEndpointRecord,
  ): Promise<WebhookEndpointRecord | undefined> {
    const current = await this.get(accountId, id);
    if (!current) return undefined;
    const next = change(current);
    // put() upserts: an endpoint deleted meanwhile would come back (and unmarked), so under the lock that
    // deletions hold, check it is still there.
    return this.accounts.locked(accountId, async () => {
      if (!(await this.get(accountId, id))) return undefined;
      await this.records.put(accountId, "webhook-endpoint", id, next);
      return next;
    });
  }

  patch(accountId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | undefined> {
    return this.update(accountId, id, (record) => ({ ...record, ...changes }));
  }

  rotateSecret(accountId: string, id: string, now: number): Promise<WebhookEndpointRecord | undefined> {
    return this.update(accountId, id, (record) => ({
      ...record,
      secret: newEndpointSecret(),
      previous_secret: record.secret,
      previous_secret_until: now + SECRET_OVERLAP_MS,
    }));
  }

  /** True when it was deleted; the account is unmarked with its last endpoint (docs/webhooks.md). */
  delete(accountId: string, id: string): Promise<boolean> {
    return this.accounts.locked(accountId, async () => {
      const deleted = await this.records.delete(accountId, "webhook-endpoint", id);
      if (deleted && (await this.list(accountId, 1, null)).items.length === 0) await this.accounts.unmark(accountId);
      return deleted;
    });
  }
}
