// The dead letters the archive holds: rows written by the dead-letter archiver (and by replays), read in
// their listing position as the shards' dead-letter streams would give them, so GET /v1/dlq merges both as
// one order; and the claims a replay makes on them, so a letter is replayed once wherever it is.
import { unpackDeadLetter, type DeadLetterRecord } from "../outcomes/dead-letter.js";
import type { ShardEntry, StreamPosition } from "../stores/merged-shard-streams.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import { fromArchive } from "./archive-unavailable.js";
import { MonthPartitions } from "../archive-db/month-partitions.js";
import { storableText } from "../archive-db/storable-text.js";

/** The largest int8: the bound of a shard whose stream is empty. */
const INT8_MAX = "9223372036854775807";

/** A whole letter at its position in its shard's dead-letter stream. */
export interface DeadLetterRow {
  accountId: string;
  shard: number;
  entryId: string;
  /** The whole letter, packed (packDeadLetter). */
  letter: Buffer;
}

/**
 * Inserts rows not yet stored (a letter copied twice, or after a replay claimed it, is stored once). `whole`:
 * the rows are whole letters, which replace a stored truncated copy of the same letter.
 */
export async function insertDeadLetters(
  sql: ArchiveSql,
  partitions: MonthPartitions,
  rows: readonly DeadLetterRow[],
  whole = false,
): Promise<void> {
  if (rows.length === 0) return;
  const instants = rows.map((row) => Number(row.entryId.split("-")[0]));
  await partitions.ensure("dead_letters", instants);
  const records = rows.map((row) => unpackDeadLetter(row.letter));
  // One array per column, unnested: one prepared statement for every page (see outcome-archiver.ts). The
  // letters go as base64 text: a bytea[] parameter is hex escaped character by character on the way out,
  // about twice the client's CPU for the whole events of oversized letters.
  await sql`
    INSERT INTO dead_letters (account_id, shard, entry_ms, entry_seq, dead_lettered_at, code, outcome_key, letter)
    SELECT a, s, ms, seq, at, c, k, decode(l, 'base64') FROM unnest(${rows.map((row) => storableText(row.accountId))}::text[],
      ${rows.map((row) => row.shard)}::int4[], ${rows.map((row) => row.entryId.split("-")[0]!)}::int8[],
      ${rows.map((row) => row.entryId.split("-")[1]!)}::int8[], ${instants.map((ms) => new Date(ms).toISOString())}::timestamptz[],
      ${records.map((record) => record.code)}::text[], ${records.map((record) => storableText(record.event.outcomeKey))}::text[],
      ${rows.map((row) => row.letter.toString("base64"))}::text[]) AS u(a, s, ms, seq, at, c, k, l)
    ON CONFLICT (account_id, shard, entry_ms, entry_seq, dead_lettered_at) ${whole ? sql`DO UPDATE SET letter = EXCLUDED.letter` : sql`DO NOTHING`}`;
  await partitions.inserted("dead_letters", instants);
}

export class ArchivedDeadLetters {
  private readonly partitions: MonthPartitions;

  constructor(private readonly sql: ArchiveSql) {
    this.partitions = new MonthPartitions(sql);
  }

  /** Up to `count` letters not replayed after `after` in listing order (entry id, then shard). */
  async page(
    accountId: string,
    code: string | undefined,
    after: StreamPosition | undefined,
    count: number,
  ): Promise<ShardEntry[]> {
    const { sql } = this;
    const [ms, seq] = after ? after.entryId.split("-") : ["-1", "0"];
    const rows = await fromArchive(
      () => sql<{ shard: number; entry_ms: string; entry_seq: string; letter: Buffer }[]>`
      SELECT shard, entry_ms, entry_seq, letter FROM dead_letters
      WHERE account_id = ${accountId} AND replayed_at IS NULL
        ${code === undefined ? sql`` : sql`AND code = ${code}`}
        AND (entry_ms, entry_seq, shard) > (${ms!}::numeric, ${seq!}::numeric, ${after?.shard ?? -1})
      ORDER BY entry_ms, entry_seq, shard LIMIT ${count}`,
    );
    return rows.map((row) => ({ shard: row.shard, entryId: `${row.entry_ms}-${row.entry_seq}`, payload: row.letter }));
  }

  /**
   * Letters not replayed that each shard's stream no longer holds: those before `hotFrom[shard]` (the
   * stream's first entry id; undefined for an empty stream, where every archived letter counts). A letter
   * copied but not yet deleted from its stream is at or after that entry, so it is not counted twice.
   */
  async count(accountId: string, hotFrom: readonly (string | undefined)[]): Promise<number> {
    const { sql } = this;
    const bounds = hotFrom.map((entryId) => (entryId ?? `${INT8_MAX}-0`).split("-"));
    const rows = await fromArchive(
      () => sql<{ n: string }[]>`
      SELECT count(*) AS n FROM dead_letters d
        JOIN unnest(${hotFrom.map((_, shard) => shard)}::int4[], ${bounds.map(([ms]) => ms!)}::int8[], ${bounds.map(([, seq]) => seq!)}::int8[])
          AS hot(shard, entry_ms, entry_seq) ON d.shard = hot.shard
      WHERE d.account_id = ${accountId} AND d.replayed_at IS NULL AND (d.entry_ms, d.entry_seq) < (hot.entry_ms, hot.entry_seq)`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The whole letter at a position, replayed or not (where a letter Redis keeps a prefix of is whole). */
  async whole(accountId: string, position: StreamPosition): Promise<DeadLetterRecord | undefined> {
    const { sql } = this;
    const rows = await fromArchive(
      () => sql<{ letter: Buffer }[]>`SELECT letter FROM dead_letters WHERE ${this.at(accountId, position)}`,
    );
    return rows[0] && unpackDeadLetter(rows[0].letter);
  }

  /** Marks an archived letter replayed; its whole record when this call did, undefined when it was not there to claim. */
  async claim(accountId: string, position: StreamPosition): Promise<DeadLetterRecord | undefined> {
    const { sql } = this;
    const rows = await fromArchive(
      () => sql<{ letter: Buffer }[]>`
      UPDATE dead_letters SET replayed_at = now() WHERE ${this.at(accountId, position)} AND replayed_at IS NULL RETURNING letter`,
    );
    return rows[0] && unpackDeadLetter(rows[0].letter);
  }

  /**
   * Records a letter a replay took from Redis as replayed (storing it if the archiver has not yet): a copy
   * made from Redis before the replay then changes nothing. False when another replay holds it already.
   */
  async claimCopy(row: DeadLetterRow): Promise<boolean> {
    return (await this.upsert(row, true)).length === 1;
  }

  /** Puts a claimed letter back (its replay could not be enqueued): listed again in its place. */
  async release(row: DeadLetterRow): Promise<void> {
    await this.upsert(row, false);
  }

  /** Stores the letter marked replayed or not; marking it replayed takes only a letter nobody claimed. */
  private async upsert(row: DeadLetterRow, replayed: boolean) {
    const { sql } = this;
    const [ms, seq] = row.entryId.split("-");
    const record = unpackDeadLetter(row.letter);
    return fromArchive(async () => {
      await this.partitions.ensure("dead_letters", [Number(ms)]);
      return sql`
      INSERT INTO dead_letters (account_id, shard, entry_ms, entry_seq, dead_lettered_at, code, outcome_key, letter, replayed_at)
      VALUES (${storableText(row.accountId)}, ${row.shard}, ${ms!}::int8, ${seq!}::int8, ${new Date(Number(ms)).toISOString()}::timestamptz,
        ${record.code}, ${storableText(record.event.outcomeKey)}, ${row.letter}, ${replayed ? sql`now()` : null})
      ON CONFLICT (account_id, shard, entry_ms, entry_seq, dead_lettered_at) DO UPDATE SET replayed_at = EXCLUDED.replayed_at
        ${replayed ? sql`WHERE dead_letters.replayed_at IS NULL` : sql``}
      RETURNING 1`;
    });
  }

  private at(accountId: string, position: StreamPosition) {
    const [ms, seq] = position.entryId.split("-");
    const { sql } = this;
    return sql`account_id = ${accountId} AND shard = ${position.shard} AND entry_ms = ${ms!}::int8 AND entry_seq = ${seq!}::int8
      AND dead_lettered_at = ${new Date(Number(ms)).toISOString()}::timestamptz`;
  }
}
