// Single-event ingest: `POST /v1/events` at a constant arrival rate, spread round-robin over many
// outcomes, with a mix of Variant A (task-based, `outcome_key`) and Variant B (agent-based, `key` +
// `customer_key` + `agent_key`) events. See bench/README.md for every environment variable.
//
//   k6 run -e BASE_URL=http://localhost:8080 -e TOKEN=... bench/k6/single.js

import http from "k6/http";
import { check } from "k6";
import exec from "k6/execution";
import { Counter } from "k6/metrics";
import {
  TREND_STATS,
  apiUrl,
  envDuration,
  envInt,
  envNumber,
  jsonBody,
  mixedOutcomeKey,
  params,
  pick,
  setupMixedRun,
  summarize,
  variantMix,
} from "./lib/verdict.js";

const RATE = envInt("RATE", 1000);
const DURATION = envDuration("DURATION", "60s");
const PRE_VUS = envInt("PRE_VUS", 50);
const MAX_VUS = envInt("MAX_VUS", 500);
const OUTCOMES = envInt("OUTCOMES", 2000);
const OPEN_PARALLEL = envInt("OPEN_PARALLEL", 50);
const SETUP_TIMEOUT = envDuration("SETUP_TIMEOUT", "5m");
const MIX = variantMix();
const P99_MS = envNumber("P99_MS", 50);
const ERROR_RATE = envNumber("ERROR_RATE", 0.01);
const CHECK_RATE = envNumber("CHECK_RATE", 0.99);
const MAX_DROPPED = envNumber("MAX_DROPPED", Math.floor((RATE * DURATION.ms) / 1000 / 100));

/** An action no event sends: the condition stays reachable, so outcomes stay OPEN for the run. */
const CONDITION = "bench_done";
const ACTION = "bench_step";

/** @type {{ [name: string]: import("k6/options").Threshold[] }} */
const thresholds = {
  "http_req_failed{endpoint:events}": ["rate<" + ERROR_RATE],
  "http_req_duration{endpoint:events}": ["p(99)<" + P99_MS],
  checks: ["rate>" + CHECK_RATE],
  dropped_iterations: ["count<=" + MAX_DROPPED],
};
if (MIX.bShare < 1) thresholds["http_req_duration{endpoint:events,variant:A}"] = ["p(99)<" + P99_MS];
if (MIX.bShare > 0) thresholds["http_req_duration{endpoint:events,variant:B}"] = ["p(99)<" + P99_MS];

/** @type {import("k6/options").Options} */
export const options = {
  setupTimeout: SETUP_TIMEOUT.text,
  summaryTrendStats: TREND_STATS,
  scenarios: {
    single: {
      executor: "constant-arrival-rate",
      rate: RATE,
      timeUnit: "1s",
      duration: DURATION.text,
      preAllocatedVUs: PRE_VUS,
      maxVUs: MAX_VUS,
    },
  },
  thresholds: thresholds,
};

const eventsSent = new Counter("events_sent");

/** @returns {import("./lib/verdict.js").MixedRun} */
export function setup() {
  return setupMixedRun("single", MIX, { outcomes: OUTCOMES, condition: CONDITION, openParallel: OPEN_PARALLEL });
}

/** @param {import("./lib/verdict.js").MixedRun} data */
export default function (data) {
  const n = exec.scenario.iterationInTest;
  const i = n % OUTCOMES;
  const variant = Math.random() < MIX.bShare ? "B" : "A";
  /** @type {Record<string, unknown>} */
  const event =
    variant === "A"
      ? { outcome_key: mixedOutcomeKey(data.runId, "a", i), action: ACTION, properties: { value: n } }
      : {
          key: mixedOutcomeKey(data.runId, "b", i),
          customer_key: data.customerKey,
          agent_key: data.agentKey,
          action: ACTION,
          properties: { value: n },
        };
  const res = http.post(apiUrl("/v1/events"), JSON.stringify(event), params("events", { variant: variant }));
  eventsSent.add(1, { variant: variant });
  check(
    res,
    {
      "status is 202": function (r) {
        return r.status === 202;
      },
      "body is accepted": function (r) {
        return pick(jsonBody(r), ["accepted"]) === true;
      },
    },
    { variant: variant },
  );
}

/** @param {import("./lib/verdict.js").SummaryData} data */
export function handleSummary(data) {
  const sent = data.metrics.events_sent;
  const seconds = DURATION.ms / 1000;
  return summarize("single", data, {
    config: {
      RATE: RATE,
      DURATION: DURATION.text,
      OUTCOMES: OUTCOMES,
      VARIANT: MIX.variant,
      B_SHARE: MIX.bShare,
      PRE_VUS: PRE_VUS,
      MAX_VUS: MAX_VUS,
      P99_MS: P99_MS,
      ERROR_RATE: ERROR_RATE,
      CHECK_RATE: CHECK_RATE,
      MAX_DROPPED: MAX_DROPPED,
    },
    figures: {
      events_sent: sent ? sent.values.count : 0,
      events_per_s_over_duration: sent ? Math.round(sent.values.count / seconds) : 0,
    },
    keyMetrics: ["http_req_duration{endpoint:events}", "events_sent", "dropped_iterations", "checks"],
  });
}
