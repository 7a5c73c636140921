// The dead-letter queue as the API sees it: each shard keeps an account's dead letters in a stream; the
// listing merges the shards in the order the letters were set aside.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { packDeadLetter, unpackDeadLetter, type DeadLetterRecord } from "../outcomes/dead-letter.js";
import { FILTERED_PAGE, filteredPage, formatPosition, parseCursorPosition, parsePosition } from "./merged-shard-streams.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

/** The spec's submitted Event, rebuilt from the envelope. */
export interface SubmittedEvent {
  outcome_key?: string;
  key?: string;
  action: string;
  properties?: Record<string, unknown>;
  idempotency_key?: string;
  agent_key?: string;
  customer_key?: string;
}

/** The Dead letter resource exactly as `GET /v1/dlq` lists it. */
export interface DeadLetterView {
  id: string;
  code: string;
  message: string;
  outcome_key: string;
  event: SubmittedEvent;
  received_at: string;
  dead_lettered_at: string;
  attempts: number;
}

export interface Located {
  shard: number;
  entryId: string;
  record: DeadLetterRecord;
}

export function submittedEvent(record: DeadLetterRecord): SubmittedEvent {
  const event = record.event;
  const submitted: SubmittedEvent = event.variant === "A" ? { outcome_key: event.outcomeKey, action: event.action } : { key: event.outcomeKey, action: event.action };
  if (event.properties !== undefined) submitted.properties = event.properties;
  if (event.idempotencyKey !== undefined) submitted.idempotency_key = event.idempotencyKey;
  if (event.agentKey !== undefined) submitted.agent_key = event.agentKey;
  if (event.customerKey !== undefined) submitted.customer_key = event.customerKey;
  return submitted;
}

/** A dead letter as `GET /v1/dlq` lists it (webhooks send the same). */
export function presentDeadLetter({ shard, entryId, record }: Located): DeadLetterView {
  return {
    id: formatPosition({ shard, entryId }),
    code: record.code,
    message: record.message,
    outcome_key: record.event.outcomeKey,
    event: submittedEvent(record),
    received_at: new Date(record.event.receivedAt).toISOString(),
    dead_lettered_at: new Date(Number(entryId.split("-")[0])).toISOString(),
    attempts: record.attempts,
  };
}

export class DeadLetterStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
  ) {}

  /** Dead letters waiting in the account (XLEN of each shard's stream). */
  async count(accountId: string): Promise<number> {
    const lengths = await Promise.all(Array.from({ length: this.shards }, (_, shard) => this.client.xlen(this.keys.deadLetters(shard, accountId))));
    return lengths.reduce((sum, n) => sum + n, 0);
  }

  async list(accountId: string, code: string | undefined, limit: number, cursor: string | null): Promise<{ items: DeadLetterView[]; nextCursor: string | null } | undefined> {
    const after = cursor === null ? undefined : parseCursorPosition(decodeCursor(cursor), this.shards);
    if (cursor !== null && !after) return undefined;
    const page = await filteredPage(this.client, this.shards, (shard) => this.keys.deadLetters(shard, accountId), after, limit, (entry) => {
      const record = unpackDeadLetter(entry.payload);
      return code !== undefined && record.code !== code ? undefined : presentDeadLetter({ shard: entry.shard, entryId: entry.entryId, record });
    }, {}, code === undefined ? limit + 1 : Math.max(limit + 1, FILTERED_PAGE));
    return { items: page.items, nextCursor: page.next ? encodeCursor(formatPosition(page.next)) : null };
  }

  async get(accountId: string, id: string): Promise<Located | undefined> {
    const parsed = parsePosition(id);
    if (!parsed || parsed.shard >= this.shards) return undefined;
    const reply = (await this.client.xrangeBuffer(this.keys.deadLetters(parsed.shard, accountId), parsed.entryId, parsed.entryId)) as [Buffer, Buffer[]][];
    const entry = reply[0];
    if (!entry) return undefined;
    return { ...parsed, record: unpackDeadLetter(entry[1][1] ?? Buffer.alloc(0)) };
  }

  /** Removes a replayed letter; true when it was still there (a concurrent replay removes it once). */
  async remove(accountId: string, id: string): Promise<boolean> {
    const parsed = parsePosition(id);
    if (!parsed) return false;
    return (await this.client.xdel(this.keys.deadLetters(parsed.shard, accountId), parsed.entryId)) === 1;
  }

  /** Puts back a letter whose replay could not be enqueued (under a new id: it was set aside again). */
  async restore(accountId: string, letter: Located): Promise<void> {
    await this.client.xadd(this.keys.deadLetters(letter.shard, accountId), "*", "d", packDeadLetter(letter.record));
    // Listed already when the letter was first set aside (before any upgrade that added the list: now).
    await this.client.zadd(this.keys.deadLetterAccounts(letter.shard), "NX", 0, accountId);
  }
}
