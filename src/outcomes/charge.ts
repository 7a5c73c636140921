// Billing of a confirmed Variant B outcome: one charge, priced from the contract snapshotted at creation.
import type { AttributionTally, OutcomeRecord } from "./outcome-record.js";

/** The Charge resource exactly as `GET /v1/charges` lists it. */
export interface ChargeRecord {
  id: string;
  outcome_key: string;
  customer_key: string;
  agent_key: string;
  rate_card_key: string;
  currency: string;
  unit_amount: number;
  attribution: number;
  amount: number;
  confirmed_at: string;
}

/** One entry of a shard's archive queue (keys.chargesToArchive): a charge and its account, as JSON. */
export interface QueuedCharge {
  account_id: string;
  charge: ChargeRecord;
}

export function emptyTally(): AttributionTally {
  return { count: 0, first: 0, last: 0, min: 0, max: 0, sum: 0 };
}

/** Folds one `properties.attribution` in; only finite numbers count (strings, null and NaN are ignored). */
export function applyAttribution(tally: AttributionTally, value: unknown): void {
  if (typeof value !== "number" || !Number.isFinite(value)) return;
  if (tally.count === 0) {
    tally.first = tally.min = tally.max = value;
  } else {
    tally.min = Math.min(tally.min, value);
    tally.max = Math.max(tally.max, value);
  }
  tally.last = value;
  tally.sum += value;
  tally.count += 1;
}

/** Rounds half up (away from zero for the positive amounts billing deals in), like Stripe's integer amounts. */
function roundHalfUp(value: number): number {
  return Math.sign(value) * Math.floor(Math.abs(value) + 0.5);
}

export function chargeFor(record: OutcomeRecord): ChargeRecord | undefined {
  const origin = record.origin;
  if (origin.kind !== "agent" || record.verdictAt === null) return undefined;
  const tally = origin.attribution;
  const attribution = tally.count === 0 ? 1 : tally[origin.attributionMethod];
  return {
    // One charge per outcome: the id is derived from the outcome, so a retried commit cannot mint a second.
    id: `ch_${Buffer.from(`${record.accountId}\u0000${record.key}`).toString("base64url")}`,
    outcome_key: record.key,
    customer_key: origin.customerKey,
    agent_key: origin.agentKey,
    rate_card_key: origin.rateCardKey,
    currency: origin.currency,
    unit_amount: origin.unitAmount,
    attribution,
    amount: roundHalfUp(origin.unitAmount * attribution),
    confirmed_at: new Date(record.verdictAt).toISOString(),
  };
}
