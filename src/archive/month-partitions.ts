// Month partitions of the archive's tables (declarative partitioning by range of a timestamptz): the
// archivers create a month's partition before its first row, once per process and table.
import type { ArchiveSql } from "./archive-db.js";

export type PartitionedTable = "charges" | "outcomes" | "outcome_events";

export class MonthPartitions {
  private readonly made = new Set<string>();

  constructor(private readonly sql: ArchiveSql) {}

  /** Creates the partitions of `table` that these instants (ms since the epoch) fall in. */
  async ensure(table: PartitionedTable, instants: Iterable<number>): Promise<void> {
    const months = new Set<string>();
    for (const instant of instants) months.add(new Date(instant).toISOString().slice(0, 7));
    for (const month of months) {
      if (this.made.has(`${table}:${month}`)) continue;
      // Years outside 0000-9999 print with a sign and six digits; no outcome or charge has one.
      if (!/^\d{4}-\d{2}$/.test(month)) throw new Error(`an instant outside years 0000-9999 cannot be archived (${month})`);
      const [year, monthNumber] = month.split("-").map(Number) as [number, number];
      const to = monthNumber === 12 ? `${year + 1}-01-01` : `${year}-${String(monthNumber + 1).padStart(2, "0")}-01`;
      // Bounds in UTC whatever the server's TimeZone: the month is the instant's UTC month.
      const name = `${table}_y${year}m${String(monthNumber).padStart(2, "0")}`;
      try {
        await this.sql.unsafe(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM ('${month}-01 00:00+00') TO ('${to} 00:00+00')`);
      } catch (error) {
        // Another worker created it at the same moment: IF NOT EXISTS does not cover that race.
        if ((error as { code?: string }).code !== "42P07") throw error;
      }
      this.made.add(`${table}:${month}`);
    }
  }
}
