// Reads of the insight rollups the archive holds (src/stores/insight-store.ts adds the hot ones).
import type { RollupHour } from "../outcomes/insight-rollup.js";
import type { ArchivedRollups } from "../stores/insight-store.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import { fromArchive } from "./archive-unavailable.js";

interface RollupRow {
  move_id: string;
  hour_ms: string;
  fields: Record<string, string | number>;
}

/** The move a row came in: the row's id up to its hour. */
function moveIdOf(rowId: string): string {
  const dot = rowId.indexOf(".");
  return dot < 0 ? rowId : rowId.slice(0, dot);
}

export class ArchivedRollupsPg implements ArchivedRollups {
  constructor(private readonly sql: ArchiveSql) {}

  /**
   * The account's archived rollups of hours in [from, to), and the moves they came in: a move is one day's
   * hash, stored as a row per hour under `<move id>.<hour of the day>` (rollup-mover.ts).
   */
  async read(
    accountId: string,
    from: number,
    to: number,
  ): Promise<{ moves: ReadonlySet<string>; hours: RollupHour[] }> {
    const { sql } = this;
    const rows = await fromArchive(
      () => sql<RollupRow[]>`
      SELECT move_id, (extract(epoch FROM hour) * 1000)::int8 AS hour_ms, fields FROM insight_rollups
      WHERE account_id = ${accountId} AND hour >= ${new Date(from)} AND hour < ${new Date(to)}`,
    );
    const moves = new Set<string>();
    const hours: RollupHour[] = [];
    for (const row of rows) {
      moves.add(moveIdOf(row.move_id));
      hours.push({ hour: Number(row.hour_ms), fields: Object.entries(row.fields).flat() });
    }
    return { moves, hours };
  }
}
