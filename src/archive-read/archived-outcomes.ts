// Reads of the outcomes the archiver moved to PostgreSQL: one outcome, its event log, a page of a listing,
// and, for the shard actor, which of a batch's unknown outcomes were archived (an event to one must never
// reopen or change it). Every read presents what Redis held, byte for byte: snapshots and event envelopes
// are stored as they were.
import { indexMember, type ScoreName } from "../outcomes/outcome-index.js";
import { unpackOutcome, type OutcomeRecord, type OutcomeStatus } from "../outcomes/outcome-record.js";
import { outcomeRef } from "../outcomes/outcome-ref.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import { fromArchive } from "./archive-unavailable.js";
import { storableText } from "../archive-db/storable-text.js";

/** The page of an archived event log, as the Redis log would give it: entry ids and envelopes. */
export interface ArchivedLogEntry {
  id: string;
  envelope: Buffer;
}

/** What the actor needs of an archived outcome to answer an event sent to it as Redis would have. */
export interface ArchivedOutcome {
  status: OutcomeStatus;
  /** Idempotency keys of its applied events (as stored: see storableText). */
  idempotencyKeys: ReadonlySet<string>;
}

/** The filters of a listing (undefined where none); the same as the Redis listing applies. */
export interface ArchiveListFilter {
  status: string | undefined;
  taskKey: string | undefined;
  agentKey: string | undefined;
  customerKey: string | undefined;
  /** Narrowed here to FAILED outcomes; which clause was false is decided on the snapshot, as in Redis. */
  failedClause: string | undefined;
}

/** A listing's order: by creation, or by one score ascending or descending. */
export type ArchiveListOrder = { by: "created" } | { by: ScoreName; descending: boolean };

const MEMBER_COLUMN = {
  created: "created_member",
  trajectory: "trajectory_member",
  anomaly: "anomaly_member",
  novelty: "novelty_member",
} as const;

export class ArchivedOutcomes {
  constructor(private readonly sql: ArchiveSql) {}

  async get(accountId: string, key: string): Promise<OutcomeRecord | undefined> {
    const [row] = await fromArchive(
      () =>
        this.sql<
          { snapshot: Buffer }[]
        >`SELECT snapshot FROM outcomes WHERE account_id = ${accountId} AND key = ${key} LIMIT 1`,
    );
    return row ? unpackOutcome(row.snapshot) : undefined;
  }

  /** Archived outcomes of one account by key, one query. */
  async getMany(accountId: string, keys: readonly string[]): Promise<Map<string, OutcomeRecord>> {
    const found = new Map<string, OutcomeRecord>();
    if (keys.length === 0) return found;
    const rows = await fromArchive(
      () =>
        this.sql<
          { key: string; snapshot: Buffer }[]
        >`SELECT key, snapshot FROM outcomes WHERE account_id = ${accountId} AND key = ANY(${this.sql.array([...keys])})`,
    );
    for (const row of rows) found.set(row.key, unpackOutcome(row.snapshot));
    return found;
  }

  /** Up to `limit` log entries after the entry id `after` (all from the start when null), oldest first. */
  async events(accountId: string, key: string, after: string | null, limit: number): Promise<ArchivedLogEntry[]> {
    const [ms, seq] = after === null ? ["-1", "0"] : after.split("-");
    const rows = await fromArchive(
      () => this.sql<{ id_ms: string; id_seq: string; envelope: Buffer }[]>`
      SELECT id_ms, id_seq, envelope FROM outcome_events
      WHERE account_id = ${accountId} AND outcome_key = ${key} AND (id_ms, id_seq) > (${ms!}::numeric, ${seq!}::numeric)
      ORDER BY id_ms, id_seq LIMIT ${limit}`,
    );
    return rows.map((row) => ({ id: `${row.id_ms}-${row.id_seq}`, envelope: row.envelope }));
  }

  /**
   * Up to `count` archived outcomes of the listing after the member `after` (from its start when
   * undefined), with their listing members, in the order the Redis indexes use.
   */
  async list(
    accountId: string,
    filter: ArchiveListFilter,
    order: ArchiveListOrder,
    after: string | undefined,
    count: number,
  ): Promise<{ member: string; record: OutcomeRecord }[]> {
    const { sql } = this;
    const column = sql(MEMBER_COLUMN[order.by]);
    const descending = order.by !== "created" && order.descending;
    const position =
      after === undefined ? sql`` : descending ? sql`AND ${column} < ${after}` : sql`AND ${column} > ${after}`;
    const rows = await fromArchive(
      () => sql<{ member: string; snapshot: Buffer }[]>`
      SELECT ${column} AS member, snapshot FROM outcomes
      WHERE account_id = ${accountId} AND ${column} IS NOT NULL ${position}
        ${filter.status === undefined ? sql`` : sql`AND status = ${filter.status}`}
        ${filter.taskKey === undefined ? sql`` : sql`AND task_key = ${filter.taskKey}`}
        ${filter.agentKey === undefined ? sql`` : sql`AND agent_key = ${filter.agentKey}`}
        ${filter.customerKey === undefined ? sql`` : sql`AND customer_key = ${filter.customerKey}`}
        ${filter.failedClause === undefined ? sql`` : sql`AND status = 'FAILED'`}
      ORDER BY ${column} ${descending ? sql`DESC` : sql`ASC`} LIMIT ${count}`,
    );
    return rows.map((row) => ({ member: row.member, record: unpackOutcome(row.snapshot) }));
  }

  /** The archived outcomes among these refs of one shard's batch, by ref. */
  async lookup(refs: readonly { accountId: string; outcomeKey: string }[]): Promise<Map<string, ArchivedOutcome>> {
    const found = new Map<string, ArchivedOutcome>();
    if (refs.length === 0) return found;
    const { sql } = this;
    const rows = await sql<{ account_id: string; key: string; status: OutcomeStatus; idempotency_keys: string[] }[]>`
      SELECT o.account_id, o.key, o.status,
             coalesce(array_agg(e.idempotency_key) FILTER (WHERE e.idempotency_key IS NOT NULL), '{}') AS idempotency_keys
      FROM outcomes o
      LEFT JOIN outcome_events e ON e.account_id = o.account_id AND e.outcome_key = o.key AND e.outcome_created_at = o.created_at
      WHERE (o.account_id, o.key) IN (SELECT * FROM unnest(${sql.array(refs.map((ref) => ref.accountId))}::text[], ${sql.array(refs.map((ref) => ref.outcomeKey))}::text[]))
      GROUP BY o.account_id, o.key, o.status`;
    for (const row of rows)
      found.set(outcomeRef(row.account_id, row.key), {
        status: row.status,
        idempotencyKeys: new Set(row.idempotency_keys),
      });
    return found;
  }
}

/** Whether an outcome can be stored in PostgreSQL under its own key (text columns cannot hold NUL). */
export function archivable(record: OutcomeRecord): boolean {
  return storableText(record.accountId) === record.accountId && storableText(record.key) === record.key;
}

/** The creation member of an archived outcome (the same as its Redis index member). */
export function createdMemberOf(record: OutcomeRecord): string {
  return indexMember(record.createdAt, record.key);
}
