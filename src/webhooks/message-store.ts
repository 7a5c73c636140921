// Webhook messages in Redis, per shard (the shard of the outcome that caused them, so the shard's owner
// delivers them and their keys share the outbox's slot): fan-out, attempts, resend, and the listings the
// API merges over the shards. A message's body is stored once for all its endpoints; each endpoint's
// message holds its state. Every message and attempt list expires the retention after its last change, and
// an endpoint's delivered and failed messages beyond the log's count leave Redis (pending ones never do).
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";
import {
  messageView,
  parseMessage,
  type AttemptView,
  type MessageStatus,
  type MessageView,
  type StoredMessage,
} from "./message.js";

/** How long an endpoint's messages are kept, and how many. */
export interface MessageLogLimits {
  /** Messages and their attempts are kept this long after their last change (VERDICT_WEBHOOK_RETENTION). */
  retentionMs: number;
  /**
   * Messages kept per endpoint over all shards (VERDICT_WEBHOOK_LOG_MAX): each shard keeps its share,
   * `ceil(logMax / shards)`; delivered and failed ones beyond it are removed, pending ones stay.
   */
  logMax: number;
  /**
   * Undelivered messages an endpoint may have queued over all shards (VERDICT_WEBHOOK_BACKLOG_MAX), each shard
   * its share: at that backlog the endpoint gets no new message until it drains.
   */
  backlogMax: number;
}

export function activeMember(accountId: string, endpointId: string): string {
  return `${accountId}\n${endpointId}`;
}

export function parseActiveMember(member: string): { accountId: string; endpointId: string } {
  const split = member.indexOf("\n");
  return { accountId: member.slice(0, split), endpointId: member.slice(split + 1) };
}

const STATE_FIELDS = ["id", "type", "order", "status", "attempts", "tries", "next_at", "created_at"] as const;

/** resend.lua's replies, as its header names them. */
const RESEND_REPLY = { QUEUED: 1, UNKNOWN: 0 } as const;

interface MessageScriptReplies {
  /** [created, skipped, f, the f endpoints found at their backlog, then (member, excess) per endpoint whose log is over the count]. */
  fanout: [created: number, skipped: number, fullCount: number, ...rest: (string | number)[]];
  /** Delivered or failed messages beyond the count. */
  "record-attempts": number;
  /** RESEND_REPLY. */
  resend: number;
  /** Messages removed. */
  "trim-log": number;
}

/** One outbox entry and the endpoints it makes a message for (none: the entry is only deleted). */
export interface FanOut {
  outboxEntryId: string;
  messageId: string;
  type: string;
  order: string;
  body: string;
  accountId: string;
  endpointIds: readonly string[];
}

/** One delivery attempt of a message and the state it leaves the message in. */
export interface AttemptRecord {
  messageId: string;
  attempt: AttemptView;
  status: MessageStatus;
  /** The next attempt (ms), when pending. */
  nextAt: number;
}

export class WebhookMessageStore {
  private readonly scripts: Scripts<MessageScriptReplies>;
  /** Messages kept per endpoint on one shard. */
  private readonly shardLogMax: number;
  /** Undelivered messages an endpoint may have queued on one shard. */
  private readonly shardBacklogMax: number;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
    private readonly limits: MessageLogLimits,
  ) {
    this.scripts = new Scripts(client, new URL("./lua/", import.meta.url), [
      "fanout",
      "record-attempts",
      "resend",
      "trim-log",
    ]);
    this.shardLogMax = Math.max(1, Math.ceil(limits.logMax / shards));
    this.shardBacklogMax = Math.max(1, Math.ceil(limits.backlogMax / shards));
  }

  /**
   * Creates each entry's messages (one per endpoint, the body once; none for an endpoint whose backlog is
   * full) and deletes the entries from the shard's outbox, atomically; then trims the logs the new messages
   * took past their count. `full`: the endpoints (active-set members) found at their backlog.
   */
  async fanOut(
    shard: number,
    entries: readonly FanOut[],
    now: number,
  ): Promise<{ created: number; skipped: number; full: string[] }> {
    if (entries.length === 0) return { created: 0, skipped: 0, full: [] };
    const { keys } = this;
    const scriptKeys = [keys.webhookOutbox(shard), keys.webhookSequence(shard), keys.webhookActive(shard)];
    const args: (string | number)[] = [now, this.limits.retentionMs, this.shardLogMax, this.shardBacklogMax];
    for (const entry of entries) {
      const { accountId, messageId } = entry;
      args.push(entry.outboxEntryId, messageId, entry.type, entry.order, entry.body, entry.endpointIds.length);
      if (entry.endpointIds.length > 0) scriptKeys.push(keys.webhookBody(shard, messageId));
      for (const endpointId of entry.endpointIds) {
        scriptKeys.push(
          keys.webhookQueue(shard, accountId, endpointId),
          keys.webhookMessage(shard, accountId, endpointId, messageId),
          keys.webhookMessages(shard, accountId, endpointId),
          keys.webhookDone(shard, accountId, endpointId),
        );
        args.push(activeMember(accountId, endpointId));
      }
    }
    const [created, skipped, fullCount, ...rest] = await this.scripts.run("fanout", scriptKeys, args);
    const full = rest.slice(0, Number(fullCount)).map(String);
    const overfull = rest.slice(Number(fullCount));
    for (let i = 0; i + 1 < overfull.length; i += 2) {
      const { accountId, endpointId } = parseActiveMember(String(overfull[i]));
      await this.trim(shard, accountId, endpointId, Number(overfull[i + 1]));
    }
    return { created: Number(created), skipped: Number(skipped), full };
  }

  /** Records attempts of messages in one endpoint's queue on a shard, in one call; then trims its log. */
  async recordAttempts(
    shard: number,
    accountId: string,
    endpointId: string,
    records: readonly AttemptRecord[],
  ): Promise<void> {
    if (records.length === 0) return;
    const { keys } = this;
    const scriptKeys = [
      keys.webhookQueue(shard, accountId, endpointId),
      keys.webhookActive(shard),
      keys.webhookMessages(shard, accountId, endpointId),
      keys.webhookDone(shard, accountId, endpointId),
    ];
    const args: (string | number)[] = [this.limits.retentionMs, activeMember(accountId, endpointId), this.shardLogMax];
    for (const { messageId, attempt, status, nextAt } of records) {
      scriptKeys.push(
        keys.webhookMessage(shard, accountId, endpointId, messageId),
        keys.webhookAttempts(shard, accountId, endpointId, messageId),
        keys.webhookBody(shard, messageId),
      );
      args.push(messageId, JSON.stringify(attempt), status, nextAt);
    }
    await this.trim(shard, accountId, endpointId, await this.scripts.run("record-attempts", scriptKeys, args));
  }

  /**
   * Removes an endpoint's oldest `excess` delivered or failed messages on a shard (their state, attempts
   * and share of the body). A crash before this runs leaves them to the retention.
   */
  private async trim(shard: number, accountId: string, endpointId: string, excess: number): Promise<void> {
    if (excess <= 0) return;
    const { keys } = this;
    const ids = await this.client.zrange(keys.webhookDone(shard, accountId, endpointId), "0", String(excess - 1));
    if (ids.length === 0) return;
    const scriptKeys = [
      keys.webhookMessages(shard, accountId, endpointId),
      keys.webhookDone(shard, accountId, endpointId),
    ];
    for (const id of ids)
      scriptKeys.push(
        keys.webhookMessage(shard, accountId, endpointId, id),
        keys.webhookAttempts(shard, accountId, endpointId, id),
        keys.webhookBody(shard, id),
      );
    await this.scripts.run("trim-log", scriptKeys, ids);
  }

  /** The first `limit` message ids of an endpoint's queue on a shard, in commit order. */
  queueHead(shard: number, accountId: string, endpointId: string, limit: number): Promise<string[]> {
    return this.client.zrange(this.keys.webhookQueue(shard, accountId, endpointId), "0", String(limit - 1));
  }

  /** Endpoints with undelivered messages on the shard. */
  active(shard: number): Promise<string[]> {
    return this.client.smembers(this.keys.webhookActive(shard));
  }

  /** Forgets the queue of an endpoint that no longer exists. */
  async dropQueue(shard: number, accountId: string, endpointId: string): Promise<void> {
    await this.client.del(this.keys.webhookQueue(shard, accountId, endpointId));
    await this.client.srem(this.keys.webhookActive(shard), activeMember(accountId, endpointId));
  }

  /** The messages' state without their bodies (what a queue scan needs); body is "". */
  async states(
    shard: number,
    accountId: string,
    endpointId: string,
    ids: readonly string[],
  ): Promise<(StoredMessage | undefined)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.webhookMessage(shard, accountId, endpointId, id), ...STATE_FIELDS);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, values]) => {
      // A failed read is not an expired message: the round fails and runs again, nothing is marked failed.
      if (error) throw error;
      const hash: Record<string, string> = {};
      (values as (string | null)[]).forEach((value, i) => {
        if (value !== null) hash[STATE_FIELDS[i]!] = value;
      });
      return parseMessage(hash);
    });
  }

  /** The bodies of messages, by id (undefined for one gone meanwhile); throws when Redis does not answer. */
  async bodies(
    shard: number,
    accountId: string,
    endpointId: string,
    ids: readonly string[],
  ): Promise<(string | undefined)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.hget(this.keys.webhookBody(shard, id), "b");
    const replies = (await pipeline.exec()) ?? [];
    const bodies = replies.map(([error, body]) => {
      if (error) throw error;
      return typeof body === "string" ? body : undefined;
    });
    return this.withOwnBodies(shard, accountId, endpointId, ids, bodies);
  }

  /**
   * Fills in the bodies of messages that carry their own (written before bodies were shared, so a
   * deployment's queued messages survive the upgrade).
   */
  private async withOwnBodies(
    shard: number,
    accountId: string,
    endpointId: string,
    ids: readonly string[],
    bodies: (string | undefined)[],
  ): Promise<(string | undefined)[]> {
    const missing = ids.flatMap((id, i) => (bodies[i] === undefined ? [{ id, i }] : []));
    if (missing.length === 0) return bodies;
    const pipeline = this.client.pipeline();
    for (const { id } of missing) pipeline.hget(this.keys.webhookMessage(shard, accountId, endpointId, id), "body");
    const replies = (await pipeline.exec()) ?? [];
    replies.forEach(([error, body], j) => {
      if (error) throw error;
      if (typeof body === "string") bodies[missing[j]!.i] = body;
    });
    return bodies;
  }

  async messages(
    shard: number,
    accountId: string,
    endpointId: string,
    ids: readonly string[],
  ): Promise<(StoredMessage | undefined)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const id of ids)
      pipeline
        .hgetall(this.keys.webhookMessage(shard, accountId, endpointId, id))
        .hget(this.keys.webhookBody(shard, id), "b");
    const replies = (await pipeline.exec()) ?? [];
    return ids.map((_, i) => {
      const [error, hash] = replies[2 * i] ?? [null, {}];
      if (error) return undefined;
      const body = replies[2 * i + 1]?.[1];
      const state = hash as Record<string, string>;
      return parseMessage(typeof body === "string" ? { ...state, body } : state);
    });
  }

  /** The shard holding the message, or undefined when no shard does. */
  async locate(accountId: string, endpointId: string, messageId: string): Promise<number | undefined> {
    const found = await Promise.all(
      Array.from({ length: this.shards }, (_, shard) =>
        this.client.exists(this.keys.webhookMessage(shard, accountId, endpointId, messageId)),
      ),
    );
    const shard = found.findIndex((n) => n === 1);
    return shard < 0 ? undefined : shard;
  }

  async get(
    accountId: string,
    endpointId: string,
    messageId: string,
  ): Promise<{ shard: number; message: StoredMessage } | undefined> {
    const shard = await this.locate(accountId, endpointId, messageId);
    if (shard === undefined) return undefined;
    const [message] = await this.messages(shard, accountId, endpointId, [messageId]);
    return message ? { shard, message } : undefined;
  }

  async attempts(shard: number, accountId: string, endpointId: string, messageId: string): Promise<AttemptView[]> {
    const items = await this.client.lrange(this.keys.webhookAttempts(shard, accountId, endpointId, messageId), 0, -1);
    return items.map((json) => JSON.parse(json) as AttemptView);
  }

  /** False when the message does not exist. */
  async resend(shard: number, accountId: string, endpointId: string, messageId: string, now: number): Promise<boolean> {
    const { keys } = this;
    const done = await this.scripts.run(
      "resend",
      [
        keys.webhookMessage(shard, accountId, endpointId, messageId),
        keys.webhookQueue(shard, accountId, endpointId),
        keys.webhookSequence(shard),
        keys.webhookActive(shard),
        keys.webhookBody(shard, messageId),
        keys.webhookDone(shard, accountId, endpointId),
      ],
      [messageId, now, this.limits.retentionMs, activeMember(accountId, endpointId)],
    );
    return done === RESEND_REPLY.QUEUED;
  }

  /**
   * A page of an endpoint's messages, oldest first, merged over the shards. The cursor is the last
   * message's "<created ms>:<id>"; undefined answers an invalid cursor.
   */
  async list(
    accountId: string,
    endpointId: string,
    limit: number,
    cursor: string | null,
  ): Promise<{ items: MessageView[]; nextCursor: string | null } | undefined> {
    let after: { at: number; id: string } | undefined;
    if (cursor !== null) {
      const match = /^(\d{1,15}):(msg_[0-9a-f]{32})$/.exec(cursor);
      if (!match?.[1] || !match[2]) return undefined;
      after = { at: Number(match[1]), id: match[2] };
    }
    const from = after === undefined ? "-inf" : String(after.at);
    const perShard = await Promise.all(
      Array.from({ length: this.shards }, async (_, shard) => {
        const flat = await this.client.zrangebyscore(
          this.keys.webhookMessages(shard, accountId, endpointId),
          from,
          "+inf",
          "WITHSCORES",
          "LIMIT",
          0,
          limit + 100,
        );
        const rows: { shard: number; id: string; at: number }[] = [];
        for (let i = 0; i < flat.length; i += 2) rows.push({ shard, id: flat[i]!, at: Number(flat[i + 1]) });
        return rows;
      }),
    );
    const rows = perShard
      .flat()
      .filter((row) => !after || row.at > after.at || (row.at === after.at && row.id > after.id))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit + 1);
    const page = rows.slice(0, limit);
    const items: MessageView[] = [];
    for (const row of page) {
      const [message] = await this.messages(row.shard, accountId, endpointId, [row.id]);
      if (message) items.push(messageView(message));
    }
    const last = page[page.length - 1];
    return { items, nextCursor: rows.length > limit && last ? `${last.at}:${last.id}` : null };
  }
}
