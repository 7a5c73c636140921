// Micro-benchmark of the condition hot paths: one event folded in and re-evaluated, and the annotated string.
// Run with `npm run bench:condition`; prints ns per operation (median of several rounds).
import {
  annotate,
  applyEvent,
  compileCondition,
  evaluate,
  initialState,
  parseCondition,
  valueAt,
  type ConditionEvent,
} from "../src/condition/index.js";
import { measure } from "./micro.js";

// Six terms, one G and one IDLE; the events keep it open (customer_csat_set never comes), as a live outcome is.
const CONDITION =
  'COUNT(agent_response)>=2 AND G(NOT escalated) AND review:score>=4 AND customer_csat_set AND reply MATCHES "^ok" AND IDLE(1d)';

const compiled = compileCondition(parseCondition(CONDITION));
const EVENTS: ReadonlyArray<Omit<ConditionEvent, "at">> = [
  { action: "agent_response", properties: { value: "here is the answer" } },
  { action: "review", properties: { score: 5, meta: { overall: 4 } } },
  { action: "reply", properties: { value: "ok, thanks" } },
  { action: "note", properties: { value: 1 } },
];

const state = initialState(compiled, 0);
let now = 0;
let sink = 0;

measure("applyEvent + evaluate value (6 terms)", 500_000, (i) => {
  now += 1000;
  const event = EVENTS[i % EVENTS.length];
  if (event === undefined) return;
  const verdict = applyEvent(compiled, state, { action: event.action, properties: event.properties, at: now });
  if (verdict !== null) throw new Error(`the benchmark trace reached a verdict: ${JSON.stringify(verdict)}`);
  sink += valueAt(compiled, state, now).length;
});

measure("annotated string", 200_000, () => {
  sink += annotate(compiled, state, now + 3_600_000).length;
});

measure("evaluate (value, annotated, progress, wake)", 200_000, () => {
  sink += evaluate(compiled, state, now + 3_600_000).annotated.length;
});

measure("parse + compile", 20_000, () => {
  sink += compileCondition(parseCondition(CONDITION)).nodes.length;
});

console.log(`\n${evaluate(compiled, state, now + 3_600_000).annotated}`);
if (sink === 0) console.log("(unreachable)");
