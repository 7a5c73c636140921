// The outcome as the shard actor keeps it and snapshots it: everything a read or a later event needs.
import { msgpack } from "../redis/msgpack.js";
import type { ConditionState } from "../condition/index.js";

export type OutcomeStatus = "OPEN" | "CONFIRMED" | "FAILED";

/** One action's tally for the Outcome's `observations`. */
export interface ObservationRecord {
  count: number;
  /** properties.value of the latest event of the action that carried one; absent when none did. */
  hasValue: boolean;
  lastValue: unknown;
  lastAt: number;
}

/** Where an outcome's contract came from: a task (Variant A) or an agent and customer (Variant B). */
export type OutcomeOrigin =
  | { kind: "task"; taskKey: string }
  | {
      kind: "agent";
      agentKey: string;
      customerKey: string;
      rateCardKey: string;
      currency: string;
      unitAmount: number;
      attributionMethod: AttributionMethod;
      /** Numeric properties.attribution values in event order (only first/last/min/max/sum of them matter). */
      attribution: AttributionTally;
    };

export type AttributionMethod = "first" | "last" | "min" | "max" | "sum";

/** Running aggregates of numeric attribution values: enough for every method, O(1) space. */
export interface AttributionTally {
  count: number;
  first: number;
  last: number;
  min: number;
  max: number;
  sum: number;
}

export interface OutcomeRecord {
  /** Snapshot format version, for future migrations. */
  v: 1;
  accountId: string;
  key: string;
  origin: OutcomeOrigin;
  goal: string | null;
  /** Canonical condition text copied at creation; later task or agent edits never change it. */
  condition: string;
  settlementPeriodMs: number | null;
  status: OutcomeStatus;
  createdAt: number;
  settlesAt: number | null;
  /** The instant of the verdict (event time, IDLE expiry or settles_at); null while OPEN. */
  verdictAt: number | null;
  /**
   * The latest instant the outcome was brought to, by an event or by time passing. Later event times are
   * clamped to it: an event stamped just before a monitor tick but read after it cannot run the clock back.
   */
  clock: number;
  conditionState: ConditionState;
  observations: Record<string, ObservationRecord>;
  /** The last shard stream entry applied to this outcome: a redelivered entry at or before it is skipped. */
  lastEntryId: string;
}

export function packOutcome(record: OutcomeRecord): Buffer {
  return msgpack.pack(record);
}

export function unpackOutcome(bytes: Buffer): OutcomeRecord {
  return msgpack.unpack(bytes) as OutcomeRecord;
}
