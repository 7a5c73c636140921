// Micro-benchmark of the model scores, the cost they add to each event in the shard actor: one applied
// event scored and trained (progress read, trajectory cell, three scores, the batch's delta), a verdict,
// and a worker's refresh of one cohort's merged model from its shards' partial hashes.
// Run with `npm run bench:scores`; prints ns per operation (median of several rounds).
import { initialState } from "../src/condition/index.js";
import { compiledCondition } from "../src/outcomes/compiled-conditions.js";
import type { OutcomeRecord } from "../src/outcomes/outcome-record.js";
import { scoreAppliedEvent, scoreOutcomeVerdict } from "../src/outcomes/outcome-scores.js";
import { mergeModels } from "../src/scores/cohort-model.js";
import { ModelDelta } from "../src/scores/model-delta.js";
import { freshScoreState } from "../src/scores/score-state.js";
import type { EventEnvelope } from "../src/streams/event-envelope.js";
import { measure } from "./micro.js";

const CONDITION = "COUNT(agent_response)>=2 AND review:score>=4 AND customer_csat_set";
const ACTIONS = ["agent_response", "review", "reply", "note", "escalate"];
const SHARDS = 16;

function outcome(at: number): OutcomeRecord {
  const compiled = compiledCondition(CONDITION);
  return {
    v: 2,
    accountId: "acct",
    key: "k",
    origin: { kind: "task", taskKey: "support" },
    goal: null,
    condition: compiled.text,
    settlementPeriodMs: 3_600_000,
    status: "OPEN",
    createdAt: at,
    settlesAt: at + 3_600_000,
    verdictAt: null,
    clock: at,
    conditionState: initialState(compiled, at),
    observations: {},
    lastEntryId: "0-0",
    scores: freshScoreState(),
  };
}

function event(i: number, at: number): EventEnvelope {
  return {
    accountId: "acct",
    outcomeKey: "k",
    variant: "A",
    action: ACTIONS[i % ACTIONS.length]!,
    properties: { value: 10 + (i % 7) },
    receivedAt: at,
  };
}

// A cohort trained by 1,000 outcomes of 8 events each, spread over the shards as partial hashes.
const partials = Array.from({ length: SHARDS }, () => new ModelDelta());
let now = 0;
for (let o = 0; o < 1000; o++) {
  const record = outcome(now);
  const delta = partials[o % SHARDS]!;
  for (let i = 0; i < 8; i++) {
    now += 1000;
    record.clock = now;
    scoreAppliedEvent(record, event(o + i, now), mergeModels([]), delta);
  }
  record.status = o % 3 === 0 ? "FAILED" : "CONFIRMED";
  scoreOutcomeVerdict(record, mergeModels([]), delta);
}
const hashes = partials.map((delta) => delta.asHash());
const model = mergeModels(hashes);

let record = outcome(now);
let delta = new ModelDelta();
let sink = 0;
measure("score + train one applied event", 500_000, (i) => {
  if (i % 1000 === 0) {
    // A batch: a fresh delta, as each commit starts one; a fresh outcome now and then.
    record = outcome(now);
    delta = new ModelDelta();
  }
  now += 1000;
  record.clock = now;
  scoreAppliedEvent(record, event(i, now), model, delta);
  sink += record.scores.novelty ?? 0;
});

measure("score + train one verdict (8 events)", 100_000, (i) => {
  const finished = outcome(now);
  for (let e = 0; e < 8; e++) finished.scores.cells.push(e, 1);
  for (const action of ACTIONS)
    finished.observations[action] = { count: 1 + (i % 3), hasValue: false, lastValue: null, lastAt: now };
  finished.status = "CONFIRMED";
  scoreOutcomeVerdict(finished, model, new ModelDelta());
  sink += finished.scores.anomaly ?? 0;
});

measure(`merge one cohort from ${SHARDS} partial hashes`, 2_000, () => {
  sink += mergeModels(hashes).outcomes;
});

console.log(
  `\nmodel: ${model.outcomes} outcomes, ${model.actions.size} actions, ${Object.keys(hashes[0]!).length} fields per partial`,
);
if (sink === 0) console.log("(unreachable)");
