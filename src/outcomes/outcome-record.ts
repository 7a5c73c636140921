// The outcome as the shard actor keeps it and snapshots it: everything a read or a later event needs.
import { msgpack } from "../codec/msgpack.js";
import type { ConditionState, FactValue, Verdict } from "../condition/index.js";
import type { AttributionMethod } from "../records/agent.js";
import { freshScoreState, type ScoreState } from "../scores/score-state.js";

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
  /** Snapshot format version: 2 added `scores`; a version 1 snapshot reads with fresh (unscored) scores. */
  v: 2;
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
  /** The model scores as last computed, and what scoring the next event or the verdict needs. */
  scores: ScoreState;
}

type PackedScores = [
  trajectory: number | null,
  anomaly: number | null,
  novelty: number | null,
  cells: number[],
  lastAction: string | null,
  lastAt: number | null,
  surprisal: number,
  steps: number,
];

type PackedObservation = [count: number, hasValue: boolean, lastValue: unknown, lastAt: number];

/**
 * An upper bound of each record's packed size, so the snapshot cap is checked without packing per event:
 * exact where a snapshot is packed or unpacked, raised by every event folded in (outcome-step.ts).
 */
const packedAtMost = new WeakMap<OutcomeRecord, number>();

/** At least the record's packed size: known, or measured by packing it. */
export function snapshotBytesAtMost(r: OutcomeRecord): number {
  return packedAtMost.get(r) ?? packOutcome(r).length;
}

/** Records that the record packs to at most `bytes`; whoever changes it next raises this first. */
export function boundSnapshotBytes(r: OutcomeRecord, bytes: number): void {
  packedAtMost.set(r, bytes);
}

/**
 * Packs the snapshot as msgpack arrays in a fixed field order where the shape is fixed (the record, its
 * condition state, each observation): every changed outcome is packed once per committed batch, and
 * without the key strings that is about a third less to write and to read back. `v` leads, so a later
 * format can be told apart.
 */
export function packOutcome(r: OutcomeRecord): Buffer {
  const state = r.conditionState;
  const observations: Record<string, PackedObservation> = {};
  for (const action in r.observations) {
    const o = r.observations[action]!;
    observations[action] = [o.count, o.hasValue, o.lastValue, o.lastAt];
  }
  const bytes = msgpack.pack([
    r.v,
    r.accountId,
    r.key,
    r.origin,
    r.goal,
    r.condition,
    r.settlementPeriodMs,
    r.status,
    r.createdAt,
    r.settlesAt,
    r.verdictAt,
    r.clock,
    [
      state.createdAt,
      state.lastEventAt,
      state.processedUntil,
      state.counts,
      state.facts,
      state.matched,
      state.memory,
      state.verdict,
    ],
    observations,
    r.lastEntryId,
    packScores(r.scores),
  ]);
  packedAtMost.set(r, bytes.length);
  return bytes;
}

function packScores(s: ScoreState): PackedScores {
  return [s.trajectory, s.anomaly, s.novelty, s.cells, s.lastAction, s.lastAt, s.surprisal, s.steps];
}

function unpackScores(p: PackedScores): ScoreState {
  const [trajectory, anomaly, novelty, cells, lastAction, lastAt, surprisal, steps] = p;
  return { trajectory, anomaly, novelty, cells, lastAction, lastAt, surprisal, steps };
}

export function unpackOutcome(bytes: Buffer): OutcomeRecord {
  const t = msgpack.unpack(bytes) as unknown[];
  // Version 1 (before scores) is version 2 without its last field.
  if (!Array.isArray(t) || !((t[0] === 1 && t.length === 15) || (t[0] === 2 && t.length === 16)))
    throw new Error("not a version 1 or 2 outcome snapshot");
  const s = t[12] as [number, number | null, number, number[], FactValue[], boolean[], number[], Verdict | null];
  const observations: Record<string, ObservationRecord> = {};
  const packed = t[13] as Record<string, PackedObservation>;
  for (const action in packed) {
    const [count, hasValue, lastValue, lastAt] = packed[action]!;
    observations[action] = { count, hasValue, lastValue, lastAt };
  }
  const record: OutcomeRecord = {
    v: 2,
    accountId: t[1] as string,
    key: t[2] as string,
    origin: t[3] as OutcomeOrigin,
    goal: t[4] as string | null,
    condition: t[5] as string,
    settlementPeriodMs: t[6] as number | null,
    status: t[7] as OutcomeStatus,
    createdAt: t[8] as number,
    settlesAt: t[9] as number | null,
    verdictAt: t[10] as number | null,
    clock: t[11] as number,
    conditionState: {
      createdAt: s[0],
      lastEventAt: s[1],
      processedUntil: s[2],
      counts: s[3],
      facts: s[4],
      matched: s[5],
      memory: s[6],
      verdict: s[7],
    },
    observations,
    lastEntryId: t[14] as string,
    scores: t[0] === 1 ? freshScoreState() : unpackScores(t[15] as PackedScores),
  };
  // A version 1 snapshot packs again larger (with its scores): its size is measured when needed.
  if (t[0] === 2) packedAtMost.set(record, bytes.length);
  return record;
}
