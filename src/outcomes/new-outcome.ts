// A new outcome's first record, the one shape every way of opening one starts from: POST /v1/outcomes
// (a task's contract) and a Variant B key's first event (an agent's).
import { initialState } from "../condition/index.js";
import { freshScoreState } from "../scores/score-state.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { OutcomeRecord } from "./outcome-record.js";

/** What the opener decides; `settlesAt` is the deadline if one is known at creation. */
export type NewOutcome = Pick<
  OutcomeRecord,
  "accountId" | "key" | "origin" | "goal" | "settlementPeriodMs" | "settlesAt"
> & {
  /** Condition text (any valid form: the record keeps the canonical text). */
  condition: string;
  /** Creation instant (the business clock): the outcome's clock starts here. */
  at: number;
};

export function newOutcomeRecord(outcome: NewOutcome): OutcomeRecord {
  const compiled = compiledCondition(outcome.condition);
  return {
    v: 2,
    accountId: outcome.accountId,
    key: outcome.key,
    origin: outcome.origin,
    goal: outcome.goal,
    condition: compiled.text,
    settlementPeriodMs: outcome.settlementPeriodMs,
    status: "OPEN",
    createdAt: outcome.at,
    settlesAt: outcome.settlesAt,
    verdictAt: null,
    clock: outcome.at,
    conditionState: initialState(compiled, outcome.at),
    observations: {},
    lastEntryId: "0-0",
    scores: freshScoreState(),
  };
}
