// Insight rollups: what one commit adds to the hourly counts per task, agent and customer (docs/insights.md).
// Pure: the shard actor and the outcome opener stage these into their own atomic writes.
import { falseClausesAtVerdict, verdictCause } from "../condition/index.js";
import type { ChargeRecord } from "./charge.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { DeadLetterRecord } from "./dead-letter.js";
import type { OutcomeRecord } from "./outcome-record.js";

export const HOUR_MS = 3_600_000;

export type InsightDimension = "task" | "agent" | "customer";

const DIMENSION_CODE: Record<InsightDimension, string> = { task: "t", agent: "a", customer: "c" };

/**
 * Upper bounds (ms, inclusive) of the time-to-verdict histogram's buckets; one more bucket holds the rest.
 * Fixed: a rollup written today adds to one written a year ago only while the buckets mean the same.
 */
export const timeToVerdictBoundsMs: readonly number[] = [
  1_000, 10_000, 60_000, 600_000, HOUR_MS, 6 * HOUR_MS, 24 * HOUR_MS, 72 * HOUR_MS, 168 * HOUR_MS, 720 * HOUR_MS,
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

/** A field split back: null for a field of another format. */
export function parseField(field: string): { dimension: InsightDimension; metric: string; groupKey: string } | null {
  const split = field.indexOf("\u001f");
  if (split < 2) return null;
  const code = field[0];
  const dimension: InsightDimension | undefined = code === "t" ? "task" : code === "a" ? "agent" : code === "c" ? "customer" : undefined;
  if (dimension === undefined) return null;
  return { dimension, metric: field.slice(1, split), groupKey: field.slice(split + 1) };
}

/** The member of a shard's rollup index (keys.insightRollupHours) for one account and hour. */
export function rollupMember(hour: number, accountId: string): string {
  return `${hour}\u001f${accountId}`;
}

export function parseRollupMember(member: string): { hour: number; accountId: string } {
  const split = member.indexOf("\u001f");
  return { hour: Number(member.slice(0, split)), accountId: member.slice(split + 1) };
}

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

export function histogramBucket(ms: number): number {
  const index = timeToVerdictBoundsMs.findIndex((bound) => ms <= bound);
  return index < 0 ? timeToVerdictBoundsMs.length : index;
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

/** One rollup hash as read from Redis or the archive: fields and their counts (or clause texts), as pairs in a row. */
export interface RollupHour {
  hour: number;
  fields: ReadonlyArray<string | number>;
}

/** The member of a shard's moves index (keys.insightRollupMoves): the move's id, hour and account. */
export function moveMember(moveId: string, hour: number, accountId: string): string {
  return `${moveId}\u001f${hour}\u001f${accountId}`;
}

export function parseMoveMember(member: string): { moveId: string; hour: number; accountId: string } {
  const first = member.indexOf("\u001f");
  const second = member.indexOf("\u001f", first + 1);
  return { moveId: member.slice(0, first), hour: Number(member.slice(first + 1, second)), accountId: member.slice(second + 1) };
}

/** One account's additions to one hour: counters (HINCRBY) and clause texts (HSET). */
export interface HourDelta {
  accountId: string;
  hour: number;
  counts: Map<string, number>;
  texts: Map<string, string>;
}

/** What one commit adds to the rollups, by account and hour. */
export class RollupDelta {
  private readonly hours = new Map<string, HourDelta>();

  get empty(): boolean {
    return this.hours.size === 0;
  }

  *[Symbol.iterator](): IterableIterator<HourDelta> {
    yield* this.hours.values();
  }

  private hour(accountId: string, at: number): HourDelta {
    const hour = hourOf(at);
    const id = `${accountId}\u0000${hour}`;
    let delta = this.hours.get(id);
    if (!delta) {
      delta = { accountId, hour, counts: new Map(), texts: new Map() };
      this.hours.set(id, delta);
    }
    return delta;
  }

  private add(delta: HourDelta, groups: ReadonlyArray<[InsightDimension, string]>, metric: string, by = 1): void {
    for (const [dimension, key] of groups) {
      const field = fieldOf(dimension, metric, key);
      delta.counts.set(field, (delta.counts.get(field) ?? 0) + by);
    }
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
    this.add(delta, groups, `${METRIC.histogram}${histogramBucket(record.verdictAt - record.createdAt)}`);
    if (record.status !== "FAILED") return;
    for (const clause of falseClausesAtVerdict(compiled, state)) {
      this.add(delta, groups, `${METRIC.clause}${clause.id}`);
      for (const [dimension, key] of groups) delta.texts.set(fieldOf(dimension, `${METRIC.clauseText}${clause.id}`, key), clause.text);
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
