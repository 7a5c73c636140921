// Reads and creation of outcomes from Redis, for any ingress node: snapshots, listings merged across
// shards, event logs, and opening an outcome from a task.
import type { RedisClient } from "../redis/client.js";
import { Scripts } from "../redis/scripts.js";
import { shardOf } from "../streams/shard.js";
import { unpackEnvelope, type EventEnvelope } from "../streams/event-envelope.js";
import type { Keys } from "../redis/keys.js";
import { newOutcomeRecord } from "../outcomes/new-outcome.js";
import { dueAtOf } from "../outcomes/due-time.js";
import { FILTERED_PAGE } from "./merged-shard-streams.js";
import { ShardMerge } from "./shard-merge.js";
import { compareUtf8 } from "./utf8-order.js";
import { packOutcome, unpackOutcome, type OutcomeRecord } from "../outcomes/outcome-record.js";
import { indexMember, keyOfIndexMember, type ScoreName } from "../outcomes/outcome-index.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import type { ArchivedOutcomes, ArchiveListOrder } from "../archive-read/archived-outcomes.js";
import { DEFAULT_QUOTAS, openOutcomesPerShard } from "../config/quotas.js";
import { dayOf, groupFieldOf, hourOfDay, METRIC, rollupMember } from "../outcomes/insight-rollup.js";
import { quotaExceeded } from "../errors/quota-exceeded.js";
import { compiledCondition } from "../outcomes/compiled-conditions.js";
import { falseClausesAtVerdict } from "../condition/index.js";

/** open-outcome.lua's answer when the account's share of the open-outcome quota on the shard is full. */
const OPEN_QUOTA_FULL = -1;

interface OutcomeScriptReplies {
  /** null when created, the existing snapshot when the key was taken, OPEN_QUOTA_FULL when the quota is full. */
  "open-outcome": Buffer | number | null;
}

export interface OpenRequest {
  accountId: string;
  key: string;
  taskKey: string;
  goal: string | null;
  condition: string;
  settlementPeriodMs: number | null;
  settlesAt: number | null;
  now: number;
}

export type OpenResult =
  { kind: "created" | "existing"; record: OutcomeRecord } | { kind: "conflict"; record: OutcomeRecord };

export interface LoggedEvent {
  id: string;
  action: string;
  properties: Record<string, unknown>;
  idempotency_key: string | null;
  received_at: string;
}

/** A listing by score instead of creation time: only scored outcomes (non-null) are listed. */
export interface ScoreSort {
  score: ScoreName;
  order: "asc" | "desc";
}

/** Outcomes created in a period by status (of the `read` snapshots looked at). */
export interface StatusTally {
  created: number;
  read: number;
  OPEN: number;
  CONFIRMED: number;
  FAILED: number;
}

/** Filters of a listing; undefined where the request gave none. */
export interface ListFilter {
  status: string | undefined;
  taskKey: string | undefined;
  agentKey: string | undefined;
  customerKey: string | undefined;
  /** A clause id (conditionClauses): only FAILED outcomes with that clause false at the verdict. */
  failedClause: string | undefined;
}

export class OutcomeStore {
  private readonly scripts: Scripts<OutcomeScriptReplies>;

  /**
   * `archive`: where settled outcomes go after their hot retention; reads fall back to it. `openQuota`: the
   * account's open outcomes allowed, a share of it on each shard (docs/api.md, Quotas).
   */
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
    private readonly archive?: ArchivedOutcomes,
    private readonly openQuota: number = DEFAULT_QUOTAS.openOutcomes,
  ) {
    this.scripts = new Scripts(client, new URL("./lua/", import.meta.url), ["open-outcome"]);
  }

  shardOf(accountId: string, key: string): number {
    return shardOf(accountId, key, this.shards);
  }

  /** The outcome from Redis, or from the archive once it moved there (it is deleted from Redis only after). */
  async get(accountId: string, key: string): Promise<OutcomeRecord | undefined> {
    const bytes = await this.client.getBuffer(this.keys.outcome(this.shardOf(accountId, key), accountId, key));
    if (bytes) return unpackOutcome(bytes);
    return this.archive?.get(accountId, key);
  }

  async exists(accountId: string, key: string): Promise<boolean> {
    if ((await this.client.exists(this.keys.outcome(this.shardOf(accountId, key), accountId, key))) === 1) return true;
    return (await this.archive?.get(accountId, key)) !== undefined;
  }

  /**
   * Writes the outcome's first snapshot unless its key is taken. The shard actor loads what it does not
   * hold from Redis, so an event enqueued after this returns is applied to it.
   */
  async open(request: OpenRequest): Promise<OpenResult> {
    const { accountId, key, now } = request;
    const settlesAt =
      request.settlesAt ?? (request.settlementPeriodMs === null ? null : now + request.settlementPeriodMs);
    const record = newOutcomeRecord({
      accountId,
      key,
      origin: { kind: "task", taskKey: request.taskKey },
      goal: request.goal,
      condition: request.condition,
      settlementPeriodMs: request.settlementPeriodMs,
      settlesAt,
      at: now,
    });
    // A key whose outcome moved to the archive is taken for good: opening it again answers the archived one.
    const archived = await this.archive?.get(accountId, key);
    if (archived) return { kind: sameTask(archived, request.taskKey) ? "existing" : "conflict", record: archived };
    const shard = this.shardOf(accountId, key);
    const perShard = openOutcomesPerShard(this.openQuota, this.shards);
    const existing = await this.scripts.runBuffer(
      "open-outcome",
      [
        this.keys.outcome(shard, accountId, key),
        this.keys.outcomeIndex(shard, accountId),
        this.keys.due(shard),
        this.keys.idempotency(shard, accountId, key),
        this.keys.openOutcomes(shard),
        this.keys.insightRollupDay(shard, accountId, dayOf(now)),
        this.keys.insightRollupDays(shard),
      ],
      [
        packOutcome(record),
        indexMember(now, key),
        outcomeRef(accountId, key),
        dueAtOf(record) ?? -1,
        accountId,
        perShard,
        groupFieldOf("task", request.taskKey),
        hourOfDay(now),
        METRIC.opened,
        rollupMember(dayOf(now), accountId),
        dayOf(now),
      ],
    );
    if (existing === OPEN_QUOTA_FULL)
      throw quotaExceeded(
        "open_outcomes",
        this.openQuota,
        `open outcomes (${perShard} on each of its ${this.shards} shards)`,
      );
    if (!Buffer.isBuffer(existing)) return { kind: "created", record };
    const current = unpackOutcome(existing);
    return { kind: sameTask(current, request.taskKey) ? "existing" : "conflict", record: current };
  }

  /**
   * The account's outcomes, oldest first (or by a score, ties by key), merged across shards, filtered; up
   * to `limit` per page; undefined for a cursor this list (in this order) did not hand out.
   */
  async list(
    accountId: string,
    filter: ListFilter,
    limit: number,
    cursor: string | null,
    sort?: ScoreSort,
  ): Promise<{ records: OutcomeRecord[]; nextCursor: string | null } | undefined> {
    const after = cursor === null ? null : decodeCursor(cursor);
    // Only a member this index could have written: a cursor from elsewhere (another order, another list)
    // would page from anywhere.
    const member = sort ? /^\d{5}\n./s : /^\d{15}\n./s;
    if (after === undefined || (after !== null && !member.test(after))) return undefined;
    // A filter may skip most of the index: load snapshots in large batches then, not `limit` at a time.
    const filtered = Object.values(filter).some((value) => value !== undefined);
    // One record more than the page: only a record after it makes a next page (spec: next_cursor is null on
    // the last page, so a filter that matches nothing further must not leave a cursor to an empty page).
    const batchSize = filtered ? Math.max(limit + 1, FILTERED_PAGE) : limit + 1;
    const descending = sort?.order === "desc";
    const start = after === null ? (descending ? "+" : "-") : `(${after}`;
    const indexKey = (shard: number): string =>
      sort ? this.keys.scoreIndex(shard, accountId, sort.score) : this.keys.outcomeIndex(shard, accountId);
    // Archived outcomes are one more sorted source, after the shards, read with their records.
    const archive = this.archive;
    const archived = new Map<string, OutcomeRecord>();
    const order: ArchiveListOrder = sort ? { by: sort.score, descending } : { by: "created" };
    const index = new ShardMerge<string>(
      archive ? this.shards + 1 : this.shards,
      {
        read: async (shard, last, count) => {
          if (shard === this.shards && archive) {
            const rows = await archive.list(accountId, filter, order, last ?? after ?? undefined, count);
            for (const { member, record } of rows) archived.set(member, record);
            return rows.map(({ member }) => member);
          }
          const from = last === undefined ? start : `(${last}`;
          return descending
            ? this.client.zrevrangebylex(indexKey(shard), from, "-", "LIMIT", 0, count)
            : this.client.zrangebylex(indexKey(shard), from, "+", "LIMIT", 0, count);
        },
        compare: descending ? (a, b) => compareUtf8(b, a) : compareUtf8,
        // The archive is read after the shards in each round: an outcome deleted from Redis since its shard
        // was read is then in the archive already (it is deleted only after its rows committed).
        readLast: archive ? this.shards : undefined,
      },
      Math.ceil((2 * (batchSize + 1)) / this.shards),
    );
    const records: OutcomeRecord[] = [];
    let previous: string | undefined;
    /** The page's last member, once the page is full: the cursor if another record follows. */
    let pageEnd: string | undefined;
    for (;;) {
      const taken = await index.take(batchSize);
      // An outcome moving while the list reads both sources is listed by both: once is enough.
      const batch = taken.filter((member) => member !== previous && ((previous = member), true));
      const snapshots = await this.loadAll(
        accountId,
        batch.map(keyOfIndexMember),
        batch.map((member) => archived.get(member)),
      );
      for (const [i, member] of batch.entries()) {
        const record = snapshots[i];
        if (!record || !matches(record, filter)) continue;
        if (pageEnd !== undefined) return { records, nextCursor: encodeCursor(pageEnd) };
        records.push(record);
        if (records.length === limit) pageEnd = member;
      }
      if (taken.length < batchSize) return { records, nextCursor: null };
    }
  }

  /**
   * The outcomes created at or after `since`, by status: counted exactly through the index (ZLEXCOUNT),
   * their statuses read from at most `maxRead` snapshots (`read` says how many) so the answer stays quick.
   */
  async tallyCreatedSince(accountId: string, since: number, maxRead: number): Promise<StatusTally> {
    const from = `[${indexMember(since, "").slice(0, -1)}`;
    const perShard = Math.max(1, Math.ceil(maxRead / this.shards));
    const tally: StatusTally = { created: 0, read: 0, OPEN: 0, CONFIRMED: 0, FAILED: 0 };
    await Promise.all(
      Array.from({ length: this.shards }, async (_, shard) => {
        const index = this.keys.outcomeIndex(shard, accountId);
        const [count, members] = await Promise.all([
          this.client.zlexcount(index, from, "+"),
          this.client.zrangebylex(index, from, "+", "LIMIT", 0, perShard),
        ]);
        tally.created += count;
        const records = await this.loadAll(accountId, members.map(keyOfIndexMember));
        for (const record of records) {
          if (!record) continue;
          tally.read++;
          tally[record.status]++;
        }
      }),
    );
    return tally;
  }

  /**
   * Snapshots in the order of `outcomeKeys`, one MGET per shard (a shard's keys share a slot), not a GET
   * each. `known` holds records already read (from the archive); a snapshot gone from Redis since its
   * index was read has moved to the archive and is read there.
   */
  private async loadAll(
    accountId: string,
    outcomeKeys: string[],
    known: (OutcomeRecord | undefined)[] = [],
  ): Promise<(OutcomeRecord | undefined)[]> {
    const byShard = new Map<number, number[]>();
    const records = new Array<OutcomeRecord | undefined>(outcomeKeys.length);
    outcomeKeys.forEach((key, i) => {
      const record = known[i];
      if (record) {
        records[i] = record;
        return;
      }
      const shard = this.shardOf(accountId, key);
      const positions = byShard.get(shard);
      if (positions) positions.push(i);
      else byShard.set(shard, [i]);
    });
    const gone: number[] = [];
    await Promise.all(
      [...byShard].map(async ([shard, positions]) => {
        const bytes = await this.client.mgetBuffer(
          ...positions.map((i) => this.keys.outcome(shard, accountId, outcomeKeys[i]!)),
        );
        positions.forEach((i, n) => {
          const snapshot = bytes[n];
          if (snapshot) records[i] = unpackOutcome(snapshot);
          else gone.push(i);
        });
      }),
    );
    if (this.archive && gone.length > 0) {
      const moved = await this.archive.getMany(
        accountId,
        gone.map((i) => outcomeKeys[i]!),
      );
      for (const i of gone) records[i] = moved.get(outcomeKeys[i]!);
    }
    return records;
  }

  /**
   * The outcome's applied events, oldest first; the cursor is the last entry id returned. The archive keeps
   * the log's entry ids, so a cursor handed out before the outcome moved pages on after it.
   */
  async events(
    accountId: string,
    key: string,
    limit: number,
    cursor: string | null,
  ): Promise<{ events: LoggedEvent[]; nextCursor: string | null }> {
    const shard = this.shardOf(accountId, key);
    const log = this.keys.eventLog(shard, accountId, key);
    const from = cursor === null ? "-" : `(${cursor}`;
    let reply = ((await this.client.xrangeBuffer(log, from, "+", "COUNT", limit + 1)) as [Buffer, Buffer[]][]).map(
      ([id, fields]): [string, Buffer] => [id.toString(), fields[1] ?? Buffer.alloc(0)],
    );
    // An empty page may be a log that moved to the archive meanwhile (the snapshot goes with it).
    if (
      reply.length === 0 &&
      this.archive &&
      (await this.client.exists(this.keys.outcome(shard, accountId, key))) === 0
    ) {
      reply = (await this.archive.events(accountId, key, cursor, limit + 1)).map(({ id, envelope }) => [id, envelope]);
    }
    const page = reply.slice(0, limit);
    const events = page.map(([id, envelope]) => presentLogged(id, unpackEnvelope(envelope)));
    const last = events[events.length - 1];
    return { events, nextCursor: reply.length > limit && last ? last.id : null };
  }
}

function presentLogged(id: string, event: EventEnvelope): LoggedEvent {
  return {
    id,
    action: event.action,
    properties: event.properties ?? {},
    idempotency_key: event.idempotencyKey ?? null,
    received_at: new Date(event.receivedAt).toISOString(),
  };
}

function sameTask(record: OutcomeRecord, taskKey: string): boolean {
  return record.origin.kind === "task" && record.origin.taskKey === taskKey;
}

function matches(record: OutcomeRecord, filter: ListFilter): boolean {
  if (filter.status !== undefined && record.status !== filter.status) return false;
  const origin = record.origin;
  if (filter.taskKey !== undefined && !(origin.kind === "task" && origin.taskKey === filter.taskKey)) return false;
  if (filter.agentKey !== undefined && !(origin.kind === "agent" && origin.agentKey === filter.agentKey)) return false;
  if (filter.customerKey !== undefined && !(origin.kind === "agent" && origin.customerKey === filter.customerKey))
    return false;
  if (filter.failedClause !== undefined) return failedOn(record, filter.failedClause);
  return true;
}

/** Whether the outcome failed with this clause false: what the insight rollups count it under (insight-rollup.ts). */
function failedOn(record: OutcomeRecord, clauseId: string): boolean {
  if (record.status !== "FAILED") return false;
  return falseClausesAtVerdict(compiledCondition(record.condition), record.conditionState).some(
    (clause) => clause.id === clauseId,
  );
}
