// Tasks: templates that Variant A outcomes are opened from (key, name, goal, success condition, settlement period).

/** A task as stored and as the API returns it. */
export interface TaskRecord {
  key: string;
  name: string;
  goal: string | null;
  /** Canonical condition text (no glyphs, no brackets). */
  condition: string;
  /** Canonical duration (`1d12h`) or null: `settles_at` then stays null unless an event sets it. */
  settlement_period: string | null;
}
