// Insight rollups: what one commit adds to the hourly counts per task, agent and customer (docs/insights.md).
// Pure: the shard actor and the outcome opener stage these into their own atomic writes.
import { falseClausesAtVerdict, verdictCause } from "../condition/index.js";
import type { ChargeRecord } from "./charge.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { DeadLetterRecord } from "./dead-letter.js";
import type { OutcomeRecord } from "./outcome-record.js";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export type InsightDimension = "task" | "agent" | "customer";

const DIMENSION_CODE: Record<InsightDimension, string> = { task: "t", agent: "a", customer: "c" };
const DIMENSION_OF: Readonly<Record<string, InsightDimension>> = { t: "task", a: "agent", c: "customer" };

/**
 * Upper bounds (ms, inclusive) of the time-to-verdict histogram's buckets; one more bucket holds the rest.
 * Fixed: a rollup written today adds to one written a year ago only while the buckets mean the same.
 */
export const timeToVerdictBoundsMs: readonly number[] = [
  1_000,
  10_000,
  60_000,
  600_000,
  HOUR_MS,
  6 * HOUR_MS,
  24 * HOUR_MS,
  72 * HOUR_MS,
  168 * HOUR_MS,
  720 * HOUR_MS,
];

/** The metric codes of a rollup field (after the dimension's letter); see fieldOf. */
export const METRIC = {
  opened: "o",
  confirmed: "c",
  failed: "f",
  locked: "l",
  idle: "i",
  forced: "d",
  /** + bucket index */
  histogram: "h",
  /** + currency: charges made */
  chargeCount: "n",
  /** + currency: their amount in minor units */
  chargeAmount: "m",
  /** + dead-letter code */
  deadLetters: "x",
  /** + clause id: FAILED verdicts with this clause false */
  clause: "k",
  /** + clause id: the clause's text (a string field, written with HSET) */
  clauseText: "T",
} as const;

/** `<dimension letter><metric code><suffix>\x1f<group key>`: the key last, so it may hold any character. */
export function fieldOf(dimension: InsightDimension, metric: string, groupKey: string): string {
  return `${DIMENSION_CODE[dimension]}${metric}\u001f${groupKey}`;
}

/**
 * The field of a group in a day's rollup hash: `<dimension letter>\x1f<group key>`. Its value is the group's
 * day as one msgpack map (GroupDay), so a read gets a group's day in one value rather than a field per count.
 */
export function groupFieldOf(dimension: InsightDimension, groupKey: string): string {
  return `${DIMENSION_CODE[dimension]}\u001f${groupKey}`;
}

/** A group field split back: null for a field of another format. */
export function parseGroupField(field: string): { dimension: InsightDimension; groupKey: string } | null {
  const dimension = field[1] === "\u001f" ? DIMENSION_OF[field[0] ?? ""] : undefined;
  return dimension === undefined ? null : { dimension, groupKey: field.slice(2) };
}

/**
 * A group's day in a rollup hash (written by rollup.lua): triples in a row, [hour of the day (0 to 23), metric
 * code (METRIC, with its suffix), count], and [TEXTS_HOUR, "T" + clause id, the clause's text].
 */
export type GroupDay = ReadonlyArray<number | string>;

/** The hour of a GroupDay's clause texts: the day's, not one hour's. */
export const TEXTS_HOUR = -1;

/** A field split back: null for a field of another format. */
export function parseField(field: string): { dimension: InsightDimension; metric: string; groupKey: string } | null {
  const split = field.indexOf("\u001f");
  if (split < 2) return null;
  const code = field[0];
  const dimension: InsightDimension | undefined =
    code === "t" ? "task" : code === "a" ? "agent" : code === "c" ? "customer" : undefined;
  if (dimension === undefined) return null;
  return { dimension, metric: field.slice(1, split), groupKey: field.slice(split + 1) };
}

/** The member of a shard's rollup index (keys.insightRollupDays) for one account and day. */
export function rollupMember(day: number, accountId: string): string {
  return `${day}\u001f${accountId}`;
}

export function parseRollupMember(member: string): { day: number; accountId: string } {
  const split = member.indexOf("\u001f");
  return { day: Number(member.slice(0, split)), accountId: member.slice(split + 1) };
}

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** The UTC day holding an instant (epoch ms of its midnight): rollup hashes are per day. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The hour of its UTC day holding an instant, 0 to 23. */
export function hourOfDay(ms: number): number {
  return (hourOf(ms) - dayOf(ms)) / HOUR_MS;
}

export function histogramBucket(ms: number): number {
  const index = timeToVerdictBoundsMs.findIndex((bound) => ms <= bound);
  return index < 0 ? timeToVerdictBoundsMs.length : index;
}

/** The time-to-verdict histogram's metric per bucket index. */
const HISTOGRAM_METRICS = Array.from({ length: timeToVerdictBoundsMs.length + 1 }, (_, i) => `${METRIC.histogram}${i}`);

type Groups = ReadonlyArray<readonly [InsightDimension, string]>;

function sameGroups(a: Groups, b: Groups): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1]) return false;
  return true;
}

/** The groups an outcome counts under: its task, or its agent and its customer. */
function groupsOf(record: OutcomeRecord): Array<[InsightDimension, string]> {
  return record.origin.kind === "task"
    ? [["task", record.origin.taskKey]]
    : [
        ["agent", record.origin.agentKey],
        ["customer", record.origin.customerKey],
      ];
}

/** One archived rollup row (one hour): flat fields (fieldOf) and their counts (or clause texts), as pairs in a row. */
export interface RollupHour {
  hour: number;
  fields: ReadonlyArray<string | number>;
}

/** One day's rollup hash as read from Redis (HGETALL's reply as bytes): group fields (groupFieldOf) and their GroupDay's msgpack, as pairs in a row. */
export interface RollupDay {
  day: number;
  fields: readonly Uint8Array[];
}

/** The member of a shard's moves index (keys.insightRollupMoves): the move's id, day and account. */
export function moveMember(moveId: string, day: number, accountId: string): string {
  return `${moveId}\u001f${day}\u001f${accountId}`;
}

export function parseMoveMember(member: string): { moveId: string; day: number; accountId: string } {
  const first = member.indexOf("\u001f");
  const second = member.indexOf("\u001f", first + 1);
  return {
    moveId: member.slice(0, first),
    day: Number(member.slice(first + 1, second)),
    accountId: member.slice(second + 1),
  };
}

/** One group's additions to one hour: counters by metric code, and clause texts by clause id. */
export interface GroupHourDelta {
  /** groupFieldOf: the field of the day's hash it adds to. */
  field: string;
  /** The hour of the day, 0 to 23. */
  hourOfDay: number;
  counts: Map<string, number>;
  texts: Map<string, string>;
}

/** One account's additions to one day: one entry per group and hour. */
export interface DayDelta {
  accountId: string;
  day: number;
  cells: Map<string, GroupHourDelta>;
}

/** Where one addition goes: an account's day and the hour within it. */
interface HourSlot {
  day: DayDelta;
  hourOfDay: number;
}

/** What one commit adds to the rollups, by account and day. */
export class RollupDelta {
  private readonly days = new Map<string, DayDelta>();
  /**
   * The hour and the groups' cells last added to: a commit's additions mostly repeat one account, hour and
   * group (a storm's verdicts), which then find their cells without building a key string each.
   */
  private lastSlot: { accountId: string; hour: number; slot: HourSlot } | undefined;
  private lastCells: { slot: HourSlot; groups: Groups; cells: GroupHourDelta[] } | undefined;

  get empty(): boolean {
    return this.days.size === 0;
  }

  *[Symbol.iterator](): IterableIterator<DayDelta> {
    yield* this.days.values();
  }

  private hour(accountId: string, at: number): HourSlot {
    const hour = hourOf(at);
    const last = this.lastSlot;
    if (last !== undefined && last.hour === hour && last.accountId === accountId) return last.slot;
    const day = dayOf(at);
    const id = `${accountId}\u0000${day}`;
    let delta = this.days.get(id);
    if (!delta) {
      delta = { accountId, day, cells: new Map() };
      this.days.set(id, delta);
    }
    const slot = { day: delta, hourOfDay: hourOfDay(at) };
    this.lastSlot = { accountId, hour, slot };
    return slot;
  }

  private cells(slot: HourSlot, groups: Groups): GroupHourDelta[] {
    const last = this.lastCells;
    if (last !== undefined && last.slot === slot && sameGroups(last.groups, groups)) return last.cells;
    const cells = groups.map(([dimension, key]) => this.cell(slot, dimension, key));
    this.lastCells = { slot, groups, cells };
    return cells;
  }

  private cell(slot: HourSlot, dimension: InsightDimension, key: string): GroupHourDelta {
    const field = groupFieldOf(dimension, key);
    const id = `${slot.hourOfDay}\u0000${field}`;
    let cell = slot.day.cells.get(id);
    if (!cell)
      slot.day.cells.set(id, (cell = { field, hourOfDay: slot.hourOfDay, counts: new Map(), texts: new Map() }));
    return cell;
  }

  private add(slot: HourSlot, groups: Groups, metric: string, by = 1): void {
    for (const { counts } of this.cells(slot, groups)) counts.set(metric, (counts.get(metric) ?? 0) + by);
  }

  /** An outcome opened (counted in the hour of its creation). */
  opened(record: OutcomeRecord): void {
    this.add(this.hour(record.accountId, record.createdAt), groupsOf(record), METRIC.opened);
  }

  /** An outcome's verdict (counted in the hour of the verdict): status, cause, time to verdict, false clauses. */
  verdict(record: OutcomeRecord): void {
    if (record.status === "OPEN" || record.verdictAt === null) return;
    const delta = this.hour(record.accountId, record.verdictAt);
    const groups = groupsOf(record);
    const compiled = compiledCondition(record.condition);
    const state = record.conditionState;
    this.add(delta, groups, record.status === "CONFIRMED" ? METRIC.confirmed : METRIC.failed);
    const cause = verdictCause(compiled, state);
    this.add(delta, groups, cause === "locked" ? METRIC.locked : cause === "idle" ? METRIC.idle : METRIC.forced);
    this.add(delta, groups, HISTOGRAM_METRICS[histogramBucket(record.verdictAt - record.createdAt)]!);
    if (record.status !== "FAILED") return;
    for (const clause of falseClausesAtVerdict(compiled, state)) {
      this.add(delta, groups, `${METRIC.clause}${clause.id}`);
      for (const [dimension, key] of groups) this.cell(delta, dimension, key).texts.set(clause.id, clause.text);
    }
  }

  /** A charge (counted in the hour it was confirmed), under its agent and its customer. */
  charge(accountId: string, charge: ChargeRecord): void {
    const delta = this.hour(accountId, Date.parse(charge.confirmed_at));
    const groups: Array<[InsightDimension, string]> = [
      ["agent", charge.agent_key],
      ["customer", charge.customer_key],
    ];
    this.add(delta, groups, `${METRIC.chargeCount}${charge.currency}`);
    this.add(delta, groups, `${METRIC.chargeAmount}${charge.currency}`, charge.amount);
  }

  /**
   * A dead letter (counted in the hour its event was received), under the groups its event names (Variant
   * B) or its outcome's (`record`, when the outcome exists); one of neither is in no group.
   */
  deadLetter(letter: DeadLetterRecord, record: OutcomeRecord | undefined): void {
    const { event } = letter;
    const groups: Array<[InsightDimension, string]> = record ? groupsOf(record) : [];
    if (!record && event.agentKey !== undefined) groups.push(["agent", event.agentKey]);
    if (!record && event.customerKey !== undefined) groups.push(["customer", event.customerKey]);
    if (groups.length === 0) return;
    this.add(this.hour(event.accountId, event.receivedAt), groups, `${METRIC.deadLetters}${letter.code}`);
  }
}
