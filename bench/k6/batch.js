// Batch ingest: `POST /v1/events/batch` with BATCH_SIZE (default 500, the maximum) events per request
// at a constant arrival rate of batches, over many outcomes, Variant A and B events mixed in the same
// batch. Every batch must come back 202 with `accepted` equal to its size and `failed` empty.
//
//   k6 run -e BASE_URL=http://localhost:8080 -e TOKEN=... bench/k6/batch.js

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

const BATCH_RATE = envInt("BATCH_RATE", 20);
const BATCH_SIZE = envInt("BATCH_SIZE", 500);
const DURATION = envDuration("DURATION", "60s");
const PRE_VUS = envInt("PRE_VUS", 20);
const MAX_VUS = envInt("MAX_VUS", 200);
const OUTCOMES = envInt("OUTCOMES", 2000);
const OPEN_PARALLEL = envInt("OPEN_PARALLEL", 50);
const SETUP_TIMEOUT = envDuration("SETUP_TIMEOUT", "5m");
const MIX = variantMix();
const P99_MS = envNumber("P99_MS", 250);
const ERROR_RATE = envNumber("ERROR_RATE", 0.01);
const CHECK_RATE = envNumber("CHECK_RATE", 0.99);
const MAX_DROPPED = envNumber("MAX_DROPPED", Math.floor((BATCH_RATE * DURATION.ms) / 1000 / 100));
if (BATCH_SIZE > 500) throw new Error("BATCH_SIZE must be at most 500 (the batch endpoint's limit)");

const CONDITION = "bench_done";
const ACTION = "bench_step";

/** @type {import("k6/options").Options} */
export const options = {
  setupTimeout: SETUP_TIMEOUT.text,
  summaryTrendStats: TREND_STATS,
  scenarios: {
    batch: {
      executor: "constant-arrival-rate",
      rate: BATCH_RATE,
      timeUnit: "1s",
      duration: DURATION.text,
      preAllocatedVUs: PRE_VUS,
      maxVUs: MAX_VUS,
    },
  },
  thresholds: {
    "http_req_failed{endpoint:events_batch}": ["rate<" + ERROR_RATE],
    "http_req_duration{endpoint:events_batch}": ["p(99)<" + P99_MS],
    checks: ["rate>" + CHECK_RATE],
    // Every item of every batch confirmed: a `failed` entry (rejected or unconfirmed) misses it.
    events_failed: ["count<1"],
    dropped_iterations: ["count<=" + MAX_DROPPED],
  },
};

/** Events put in a batch request (counted whatever the answer). */
const eventsSent = new Counter("events_sent");
/** Events the service confirmed (`accepted` of 202 answers). */
const eventsAccepted = new Counter("events_accepted");
/** Events listed in `failed`, plus every event of a batch that was not answered 202. */
const eventsFailed = new Counter("events_failed");

/** @returns {import("./lib/verdict.js").MixedRun} */
export function setup() {
  return setupMixedRun("batch", MIX, { outcomes: OUTCOMES, condition: CONDITION, openParallel: OPEN_PARALLEL });
}

/** @param {import("./lib/verdict.js").MixedRun} data */
export default function (data) {
  const n = exec.scenario.iterationInTest;
  /** @type {Record<string, unknown>[]} */
  const events = [];
  for (let j = 0; j < BATCH_SIZE; j++) {
    const seq = n * BATCH_SIZE + j;
    const i = seq % OUTCOMES;
    if (Math.random() < MIX.bShare) {
      events.push({
        key: mixedOutcomeKey(data.runId, "b", i),
        customer_key: data.customerKey,
        agent_key: data.agentKey,
        action: ACTION,
        properties: { value: seq },
      });
    } else {
      events.push({ outcome_key: mixedOutcomeKey(data.runId, "a", i), action: ACTION, properties: { value: seq } });
    }
  }
  const res = http.post(apiUrl("/v1/events/batch"), JSON.stringify({ events: events }), params("events_batch"));
  eventsSent.add(BATCH_SIZE);

  const body = jsonBody(res);
  const accepted = pick(body, ["accepted"]);
  const failed = pick(body, ["failed"]);
  const failedCount = res.status === 202 && Array.isArray(failed) ? failed.length : BATCH_SIZE;
  eventsAccepted.add(res.status === 202 && typeof accepted === "number" ? accepted : 0);
  eventsFailed.add(failedCount);
  check(res, {
    "status is 202": function (r) {
      return r.status === 202;
    },
    "accepted equals batch size": function () {
      return accepted === BATCH_SIZE;
    },
    "failed is empty": function () {
      return Array.isArray(failed) && failed.length === 0;
    },
  });
}

/** @param {import("./lib/verdict.js").SummaryData} data */
export function handleSummary(data) {
  const seconds = DURATION.ms / 1000;
  const accepted = data.metrics.events_accepted;
  const sent = data.metrics.events_sent;
  return summarize("batch", data, {
    config: {
      BATCH_RATE: BATCH_RATE,
      BATCH_SIZE: BATCH_SIZE,
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
      events_accepted: accepted ? accepted.values.count : 0,
      accepted_events_per_s_over_duration: accepted ? Math.round(accepted.values.count / seconds) : 0,
    },
    keyMetrics: [
      "http_req_duration{endpoint:events_batch}",
      "events_sent",
      "events_accepted",
      "events_failed",
      "dropped_iterations",
      "checks",
    ],
  });
}
