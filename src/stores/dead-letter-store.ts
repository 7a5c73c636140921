// The dead-letter queue as the API sees it: each shard keeps an account's dead letters in a stream; the
// listing merges the shards in the order the letters were set aside.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { ArchivedDeadLetters } from "../archive-read/archived-dead-letters.js";
import { ApiError } from "../errors/api-error.js";
import { boundedLetter, packDeadLetter, unpackDeadLetter, type DeadLetterRecord } from "../outcomes/dead-letter.js";
import {
  FILTERED_PAGE,
  filteredPage,
  formatPosition,
  parseCursorPosition,
  parsePosition,
} from "./merged-shard-streams.js";
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
  /**
   * Present when the event was too large to keep whole in Redis (VERDICT_DLQ_MAX_EVENT_BYTES): `event` is
   * shown without its properties, and their JSON's size and first bytes are here. A replay sends it whole.
   */
  event_truncated?: { properties_bytes: number; properties_prefix: string };
}

export interface Located {
  shard: number;
  entryId: string;
  record: DeadLetterRecord;
}

export function submittedEvent(record: DeadLetterRecord): SubmittedEvent {
  const event = record.event;
  const submitted: SubmittedEvent =
    event.variant === "A"
      ? { outcome_key: event.outcomeKey, action: event.action }
      : { key: event.outcomeKey, action: event.action };
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
    ...(record.truncated && {
      event_truncated: { properties_bytes: record.truncated.bytes, properties_prefix: record.truncated.prefix },
    }),
  };
}

/** A letter a replay holds: its whole record, and how to put it back if the replay cannot be enqueued. */
export interface ClaimedLetter {
  record: DeadLetterRecord;
  release(): Promise<void>;
}

export interface DeadLetterStoreOptions {
  /** Letters that left Redis, listed in their place and replayable. */
  archive?: ArchivedDeadLetters | undefined;
  /** Events larger than this are presented truncated (options.dlqMaxEventBytes). */
  maxEventBytes: number;
}

export class DeadLetterStore {
  private readonly archive: ArchivedDeadLetters | undefined;
  private readonly maxEventBytes: number;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
    options: DeadLetterStoreOptions = { maxEventBytes: Number.POSITIVE_INFINITY },
  ) {
    this.archive = options.archive;
    this.maxEventBytes = options.maxEventBytes;
  }

  /**
   * Dead letters waiting for the account, in Redis and in the archive: the streams are read first, then the
   * archive counts only what lies before each stream's first entry, so a letter the archiver moves meanwhile
   * (copied, then deleted) is counted once.
   */
  async count(accountId: string): Promise<number> {
    const streams = await Promise.all(
      Array.from({ length: this.shards }, async (_, shard) => {
        const key = this.keys.deadLetters(shard, accountId);
        const [length, first] = await Promise.all([
          this.client.xlen(key),
          this.archive ? this.client.xrange(key, "-", "+", "COUNT", 1) : [],
        ]);
        return { length, first: first[0]?.[0] };
      }),
    );
    const hot = streams.reduce((sum, stream) => sum + stream.length, 0);
    return this.archive
      ? hot +
          (await this.archive.count(
            accountId,
            streams.map((stream) => stream.first),
          ))
      : hot;
  }

  async list(
    accountId: string,
    code: string | undefined,
    limit: number,
    cursor: string | null,
  ): Promise<{ items: DeadLetterView[]; nextCursor: string | null } | undefined> {
    const after = cursor === null ? undefined : parseCursorPosition(decodeCursor(cursor), this.shards);
    if (cursor !== null && !after) return undefined;
    const { archive } = this;
    const page = await filteredPage(
      this.client,
      this.shards,
      (shard) => this.keys.deadLetters(shard, accountId),
      after,
      limit,
      (entry) => {
        // An archived letter is whole: presented as Redis keeps it, so it reads the same before and after.
        const record = boundedLetter(unpackDeadLetter(entry.payload), entry.payload.length, this.maxEventBytes);
        return code !== undefined && record.code !== code
          ? undefined
          : presentDeadLetter({ shard: entry.shard, entryId: entry.entryId, record });
      },
      {},
      code === undefined ? limit + 1 : Math.max(limit + 1, FILTERED_PAGE),
      archive && ((position, count) => archive.page(accountId, code, position, count)),
    );
    return { items: page.items, nextCursor: page.next ? encodeCursor(formatPosition(page.next)) : null };
  }

  async get(accountId: string, id: string): Promise<Located | undefined> {
    const parsed = parsePosition(id);
    if (!parsed || parsed.shard >= this.shards) return undefined;
    const reply = (await this.client.xrangeBuffer(
      this.keys.deadLetters(parsed.shard, accountId),
      parsed.entryId,
      parsed.entryId,
    )) as [Buffer, Buffer[]][];
    const entry = reply[0];
    if (!entry) return undefined;
    return { ...parsed, record: unpackDeadLetter(entry[1][1] ?? Buffer.alloc(0)) };
  }

  /**
   * Takes a letter for its replay, in Redis or in the archive, whole: undefined when it is in neither or
   * another replay holds it, so a letter replayed twice at once is sent once.
   */
  async claim(accountId: string, id: string): Promise<ClaimedLetter | undefined> {
    const { archive } = this;
    const hot = await this.get(accountId, id);
    if (hot) {
      const record = hot.record.truncated ? await this.whole(accountId, hot) : hot.record;
      if (!archive) {
        // Removing it first makes a concurrent second replay find nothing.
        return (await this.remove(accountId, id)) ? { record, release: () => this.restore(accountId, hot) } : undefined;
      }
      // Marked replayed in the archive first: a second replay finds it taken, and a copy the archiver made
      // from Redis meanwhile cannot bring it back. Its Redis entry may already be gone (moved): it is ours.
      const row = { accountId, shard: hot.shard, entryId: hot.entryId, letter: packDeadLetter(record) };
      if (!(await archive.claimCopy(row))) return undefined;
      await this.remove(accountId, id);
      return { record, release: () => archive.release(row) };
    }
    const position = parsePosition(id);
    if (!archive || !position || position.shard >= this.shards || !storableInstant(position.entryId)) return undefined;
    const record = await archive.claim(accountId, position);
    if (!record) return undefined;
    const row = { accountId, ...position, letter: packDeadLetter(record) };
    if (record.truncated) {
      await archive.release(row);
      throw truncatedError(id);
    }
    return { record, release: () => archive.release(row) };
  }

  /**
   * The whole letter of one Redis keeps truncated, from the archive. Until the archiver has copied it (within
   * about a second, unless PostgreSQL is away) the replay is refused as unavailable, to be tried again.
   */
  private async whole(accountId: string, letter: Located): Promise<DeadLetterRecord> {
    if (!this.archive) throw truncatedError(formatPosition(letter));
    const archived = await this.archive.whole(accountId, letter);
    if (archived && !archived.truncated) return archived;
    if (archived || !(await this.client.exists(this.keys.deadLetterWholeEvents(letter.shard))))
      throw truncatedError(formatPosition(letter));
    throw new ApiError(
      "SERVICE_UNAVAILABLE",
      "the whole event of this dead letter is not in the archive yet; try again shortly",
      undefined,
      { retryAfterSeconds: 1 },
    );
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

/** First instant of year 10000: the archive's month partitions hold years 0000-9999 only. */
const ARCHIVABLE_BEFORE_MS = 253_402_300_800_000;

/** Whether an entry id could be an archived letter's (a time the partitions hold, a sequence bigint holds). */
function storableInstant(entryId: string): boolean {
  const [ms, seq] = entryId.split("-");
  return Number(ms) < ARCHIVABLE_BEFORE_MS && BigInt(seq!) <= 9_223_372_036_854_775_807n;
}

function truncatedError(id: string): ApiError {
  return new ApiError(
    "DEAD_LETTER_TRUNCATED",
    `dead letter ${id} keeps only a prefix of its event (no archive held the whole event), so it cannot be replayed`,
  );
}
