// Account configuration records (tasks, agents, customers, rate cards): JSON under the account's hash tag,
// upserted and listed atomically, listed in key order with a cursor.
import { DEFAULT_QUOTAS, type QuotaName, type QuotaOptions } from "../config/quotas.js";
import { quotaExceeded } from "../errors/quota-exceeded.js";
import type { RedisClient } from "../redis/client.js";
import { Scripts } from "../redis/scripts.js";
import type { Keys } from "../redis/keys.js";
import type { RecordKind } from "./record-kind.js";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** put-record.lua's and delete-record.lua's replies, as their headers name them. */
const RECORD_REPLY = { CREATED: 1, REPLACED: 0, QUOTA_FULL: -1, DELETED: 1, NONE: 0 } as const;

interface RecordScriptReplies {
  /** CREATED, REPLACED or QUOTA_FULL (nothing written). */
  "put-record": number;
  /** DELETED or NONE. */
  "delete-record": number;
}

/** Each kind's quota: its option, the name a QUOTA_EXCEEDED gives it, and how its message says it. */
const QUOTA_OF: Readonly<Record<RecordKind, { option: keyof QuotaOptions; name: QuotaName; what: string }>> = {
  task: { option: "tasks", name: "tasks", what: "tasks" },
  agent: { option: "agents", name: "agents", what: "agents" },
  customer: { option: "customers", name: "customers", what: "customers" },
  "rate-card": { option: "rateCards", name: "rate_cards", what: "rate cards" },
  "webhook-endpoint": { option: "webhookEndpoints", name: "webhook_endpoints", what: "webhook endpoints" },
};

export class RecordStore {
  private readonly scripts: Scripts<RecordScriptReplies>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly quotas: QuotaOptions = DEFAULT_QUOTAS,
  ) {
    this.scripts = new Scripts(client, new URL("./lua/", import.meta.url), ["put-record", "delete-record"]);
  }

  /** Creates or replaces; true when it was created. A creation beyond the kind's quota throws QUOTA_EXCEEDED. */
  async put(accountId: string, kind: RecordKind, key: string, record: object): Promise<boolean> {
    const quota = QUOTA_OF[kind];
    const limit = this.quotas[quota.option];
    const reply = await this.scripts.run(
      "put-record",
      [this.keys.record(accountId, kind, key), this.keys.records(accountId, kind)],
      [JSON.stringify(record), key, limit],
    );
    if (reply === RECORD_REPLY.QUOTA_FULL) throw quotaExceeded(quota.name, limit, quota.what);
    return reply === RECORD_REPLY.CREATED;
  }

  async get<T>(accountId: string, kind: RecordKind, key: string): Promise<T | undefined> {
    const json = await this.client.get(this.keys.record(accountId, kind, key));
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  /** True when a record was deleted. */
  async delete(accountId: string, kind: RecordKind, key: string): Promise<boolean> {
    const deleted = await this.scripts.run(
      "delete-record",
      [this.keys.record(accountId, kind, key), this.keys.records(accountId, kind)],
      [key],
    );
    return deleted === RECORD_REPLY.DELETED;
  }

  /** A page of records in key order; the cursor is the last key returned. */
  async list<T>(accountId: string, kind: RecordKind, limit: number, cursor: string | null): Promise<Page<T>> {
    const index = this.keys.records(accountId, kind);
    const from = cursor === null ? "-" : `(${cursor}`;
    const names = await this.client.zrangebylex(index, from, "+", "LIMIT", 0, limit + 1);
    const page = names.slice(0, limit);
    const json =
      page.length === 0 ? [] : await this.client.mget(...page.map((key) => this.keys.record(accountId, kind, key)));
    const items = json.flatMap((text) => (text === null ? [] : [JSON.parse(text) as T]));
    return { items, nextCursor: names.length > limit ? (page[page.length - 1] ?? null) : null };
  }

  /** Every record of a kind, read a page at a time (the webhook fan-out needs every endpoint of an account). */
  async all<T>(accountId: string, kind: RecordKind): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<T> = await this.list<T>(accountId, kind, 1000, cursor);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return items;
  }
}
