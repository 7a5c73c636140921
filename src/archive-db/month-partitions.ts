// Month partitions of the archive's tables (declarative partitioning by range of a timestamptz): the
// archivers create a month's partition before its first row, once per process and table, and keep its
// planner statistics fresh as they fill it.
import type { ArchiveSql } from "./archive-db.js";

export type PartitionedTable = "charges" | "outcomes" | "outcome_events" | "dead_letters";

/** Rows a process inserts into a partition before it first analyses it. */
const FIRST_ANALYZE_ROWS = 1000;

export class MonthPartitions {
  private readonly made = new Set<string>();
  /** Per partition: rows this process inserted, and how many of them the last ANALYZE had seen. */
  private readonly filled = new Map<string, { inserted: number; analysed: number }>();

  constructor(private readonly sql: ArchiveSql) {}

  /** Creates the partitions of `table` that these instants (ms since the epoch) fall in. */
  async ensure(table: PartitionedTable, instants: Iterable<number>): Promise<void> {
    for (const month of monthsOf(instants).keys()) {
      if (this.made.has(`${table}:${month}`)) continue;
      const [year, monthNumber] = month.split("-").map(Number) as [number, number];
      const to = monthNumber === 12 ? `${year + 1}-01-01` : `${year}-${String(monthNumber + 1).padStart(2, "0")}-01`;
      // Bounds in UTC whatever the server's TimeZone: the month is the instant's UTC month.
      try {
        await this.sql.unsafe(
          `CREATE TABLE IF NOT EXISTS ${partitionName(table, month)} PARTITION OF ${table} FOR VALUES FROM ('${month}-01 00:00+00') TO ('${to} 00:00+00')`,
        );
      } catch (error) {
        // Another worker created it at the same moment: IF NOT EXISTS does not cover that race.
        if ((error as { code?: string }).code !== "42P07") throw error;
      }
      this.made.add(`${table}:${month}`);
    }
  }

  /**
   * Counts rows just committed into `table` (one instant each) and analyses a partition each time this
   * process has doubled what it inserted there (1,000 rows, 2,000, 4,000...). Autovacuum may be off (it is
   * on the machine these tests run on) and PGlite has none; without statistics, a lookup whose plan was
   * cached while the partition was empty stays a sequential scan: 60-80 ms a lookup at 120,000 archived
   * outcomes in the soak, against 0.05 ms after an ANALYZE.
   */
  async inserted(table: PartitionedTable, instants: Iterable<number>): Promise<void> {
    for (const [month, rows] of monthsOf(instants)) {
      const name = partitionName(table, month);
      const filled = this.filled.get(name) ?? { inserted: 0, analysed: 0 };
      filled.inserted += rows;
      this.filled.set(name, filled);
      if (filled.inserted < Math.max(FIRST_ANALYZE_ROWS, 2 * filled.analysed)) continue;
      filled.analysed = filled.inserted;
      await this.sql.unsafe(`ANALYZE ${name}`);
    }
  }
}

/**
 * The UTC months (YYYY-MM) these instants fall in, with how many fall in each. A page's instants mostly
 * share a month, so the month of the previous instant is tried first (a Date and its ISO string per row
 * were a tenth of the archive's CPU).
 */
export function monthsOf(instants: Iterable<number>): Map<string, number> {
  const months = new Map<string, number>();
  let month = "";
  let from = 0;
  let to = -1;
  for (const instant of instants) {
    if (!(instant >= from && instant < to)) ({ month, from, to } = monthAround(instant));
    months.set(month, (months.get(month) ?? 0) + 1);
  }
  return months;
}

/** The UTC month of an instant, with its bounds [from, to) in ms. */
function monthAround(instant: number): { month: string; from: number; to: number } {
  const date = new Date(instant);
  const month = date.toISOString().slice(0, 7);
  // Years outside 0000-9999 print with a sign and six digits; no outcome or charge has one.
  if (!/^\d{4}-\d{2}$/.test(month)) throw new Error(`an instant outside years 0000-9999 cannot be archived (${month})`);
  const year = date.getUTCFullYear();
  const monthIndex = date.getUTCMonth();
  return { month, from: Date.UTC(year, monthIndex, 1), to: Date.UTC(year, monthIndex + 1, 1) };
}

function partitionName(table: PartitionedTable, month: string): string {
  const [year, monthNumber] = month.split("-");
  return `${table}_y${year}m${monthNumber}`;
}
