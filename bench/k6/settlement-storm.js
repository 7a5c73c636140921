// Settlement storm: thousands of outcomes with a short settlement period, all due at about the same
// moment; measures how long until every one of them has a verdict (CONFIRMED or FAILED).
//
// setup() creates a task with SETTLEMENT_PERIOD (default 10s) and a condition that cannot lock
// (default `NOT storm_cancelled`: true now, never locked, so only settlement decides), and opens
// STORM_OUTCOMES outcomes with a `settles_at` a day away (so outcomes opened early in setup do not
// settle before the storm). The single iteration then sends one `storm_tick` event to every outcome
// through `POST /v1/events/batch` as fast as it can: each event moves its outcome's `settles_at` to
// event time + SETTLEMENT_PERIOD, so they all fall due within the send window. It then polls until no
// outcome is OPEN and records:
//   storm_all_verdicts_ms   last 202 of the send phase -> every outcome has a verdict (includes the period)
//   storm_settlement_lag_ms the same minus SETTLEMENT_PERIOD: how late the last verdict was visible
//                           after the last outcome fell due
//
//   k6 run -e BASE_URL=http://localhost:8080 -e TOKEN=... bench/k6/settlement-storm.js

import http from "k6/http";
import { check, sleep } from "k6";
import { Counter, Rate, Trend } from "k6/metrics";
import {
  TREND_STATS,
  apiUrl,
  describe,
  envDuration,
  envInt,
  envNumber,
  envString,
  jsonBody,
  newRunId,
  openOutcomes,
  params,
  pick,
  putTask,
  requireToken,
  summarize,
} from "./lib/verdict.js";

const STORM_OUTCOMES = envInt("STORM_OUTCOMES", 5000);
const SETTLEMENT_PERIOD = envDuration("SETTLEMENT_PERIOD", "10s");
const CONDITION = envString("CONDITION", "NOT storm_cancelled");
const OPEN_PARALLEL = envInt("OPEN_PARALLEL", 100);
const BATCH_SIZE = envInt("BATCH_SIZE", 500);
const SEND_PARALLEL = envInt("SEND_PARALLEL", 10);
const POLL_MODE = envString("POLL_MODE", "list");
const POLL_MS = envNumber("POLL_MS", 250);
const GET_PARALLEL = envInt("GET_PARALLEL", 100);
const VERIFY_SAMPLE = envNumber("VERIFY_SAMPLE", 200);
const STORM_TIMEOUT = envDuration("STORM_TIMEOUT", "2m");
const SETUP_TIMEOUT = envDuration("SETUP_TIMEOUT", "10m");
const LAG_MAX_MS = envNumber("LAG_MAX_MS", 5000);
const CHECK_RATE = envNumber("CHECK_RATE", 1);
if (BATCH_SIZE > 500) throw new Error("BATCH_SIZE must be at most 500 (the batch endpoint's limit)");
if (POLL_MODE !== "list" && POLL_MODE !== "each") throw new Error("POLL_MODE must be list or each");

const ACTION = "storm_tick";
const DAY_MS = 86400000;

/** @type {import("k6/options").Options} */
export const options = {
  setupTimeout: SETUP_TIMEOUT.text,
  summaryTrendStats: TREND_STATS,
  scenarios: {
    storm: {
      executor: "shared-iterations",
      vus: 1,
      iterations: 1,
      // Send phase budget (5 minutes) + the period + the time allowed for verdicts.
      maxDuration: Math.ceil((SETTLEMENT_PERIOD.ms + STORM_TIMEOUT.ms) / 1000) + 300 + "s",
    },
  },
  thresholds: {
    storm_complete: ["rate==1"],
    storm_settlement_lag_ms: ["max<" + LAG_MAX_MS],
    checks: ["rate>=" + CHECK_RATE],
  },
};

const allVerdicts = new Trend("storm_all_verdicts_ms", true);
const settlementLag = new Trend("storm_settlement_lag_ms", true);
const sendTime = new Trend("storm_send_ms", true);
const complete = new Rate("storm_complete");
const verdicts = new Counter("storm_verdicts");
const eventsAccepted = new Counter("storm_events_accepted");

/**
 * @typedef {object} SetupData
 * @property {string} runId
 * @property {string} taskKey
 */

/**
 * @param {string} runId
 * @param {number} i
 * @returns {string}
 */
function outcomeKey(runId, i) {
  return runId + ":storm:" + i;
}

/** @returns {SetupData} */
export function setup() {
  requireToken();
  const runId = newRunId("storm");
  const taskKey = runId + "-task";
  putTask(taskKey, {
    name: "k6 settlement storm " + runId,
    goal: "Settle at once",
    condition: CONDITION,
    settlement_period: SETTLEMENT_PERIOD.text,
  });
  /** @type {string[]} */
  const keys = [];
  for (let i = 0; i < STORM_OUTCOMES; i++) keys.push(outcomeKey(runId, i));
  const started = Date.now();
  openOutcomes(keys, taskKey, { parallel: OPEN_PARALLEL, settlesAt: new Date(Date.now() + DAY_MS).toISOString() });
  console.log(
    "settlement-storm: run " + runId + ", opened " + STORM_OUTCOMES + " outcomes in " + (Date.now() - started) + " ms",
  );
  return { runId: runId, taskKey: taskKey };
}

/**
 * Sends one event to every outcome; returns the number confirmed.
 * @param {SetupData} data
 * @returns {number}
 */
function sendStorm(data) {
  /** @type {import("k6/http").ObjectBatchRequest[]} */
  const requests = [];
  /** @type {number[]} */
  const sizes = [];
  for (let start = 0; start < STORM_OUTCOMES; start += BATCH_SIZE) {
    /** @type {Record<string, unknown>[]} */
    const events = [];
    for (let i = start; i < Math.min(start + BATCH_SIZE, STORM_OUTCOMES); i++) {
      events.push({ outcome_key: outcomeKey(data.runId, i), action: ACTION, properties: { value: i } });
    }
    sizes.push(events.length);
    requests.push({
      method: "POST",
      url: apiUrl("/v1/events/batch"),
      body: JSON.stringify({ events: events }),
      params: params("events_batch"),
    });
  }
  let confirmed = 0;
  for (let start = 0; start < requests.length; start += SEND_PARALLEL) {
    const responses = http.batch(requests.slice(start, start + SEND_PARALLEL));
    for (let j = 0; j < responses.length; j++) {
      const res = responses[j];
      const size = sizes[start + j];
      const body = jsonBody(res);
      const accepted = pick(body, ["accepted"]);
      const failed = pick(body, ["failed"]);
      const ok = check(res, {
        "batch status is 202": function (r) {
          return r.status === 202;
        },
        "batch fully accepted": function () {
          return accepted === size && Array.isArray(failed) && failed.length === 0;
        },
      });
      if (!ok) console.error("settlement-storm: batch not fully accepted: " + describe(res));
      if (res.status === 202 && typeof accepted === "number") confirmed += accepted;
    }
  }
  eventsAccepted.add(confirmed);
  return confirmed;
}

/**
 * One poll in list mode: true when no outcome of the task is OPEN, null when the list endpoint
 * does not answer 200.
 * @param {SetupData} data
 * @returns {boolean | null}
 */
function noneOpen(data) {
  const url = apiUrl("/v1/outcomes") + "?status=OPEN&limit=1&task_key=" + encodeURIComponent(data.taskKey);
  const res = http.get(url, params("outcomes_list"));
  if (res.status !== 200) {
    console.error("settlement-storm: listing open outcomes failed (try POLL_MODE=each): " + describe(res));
    return null;
  }
  const list = pick(jsonBody(res), ["outcomes"]);
  return Array.isArray(list) && list.length === 0;
}

/**
 * GETs outcomes `GET_PARALLEL` at a time; returns their status by key ("" when not readable).
 * @param {string[]} keys
 * @returns {Record<string, string>}
 */
function readStatuses(keys) {
  /** @type {Record<string, string>} */
  const out = {};
  for (let start = 0; start < keys.length; start += GET_PARALLEL) {
    const chunk = keys.slice(start, start + GET_PARALLEL);
    const responses = http.batch(
      chunk.map(function (key) {
        return { method: "GET", url: apiUrl("/v1/outcomes/{}", key), params: params("outcome_get") };
      }),
    );
    for (let j = 0; j < responses.length; j++) {
      const status = pick(jsonBody(responses[j]), ["status"]);
      out[chunk[j]] = responses[j].status === 200 && typeof status === "string" ? status : "";
    }
  }
  return out;
}

/** @param {string} status */
function isVerdict(status) {
  return status === "CONFIRMED" || status === "FAILED";
}

/** @param {SetupData} data */
export default function (data) {
  // storm_complete gets exactly one sample, false unless every outcome was seen with a verdict, even
  // when something throws (a Rate without samples would pass its threshold).
  let completed = false;
  try {
    completed = storm(data);
  } finally {
    complete.add(completed);
  }
}

/**
 * Sends the storm and waits for the verdicts; true when every outcome had one in time.
 * @param {SetupData} data
 * @returns {boolean}
 */
function storm(data) {
  const sendStarted = Date.now();
  const confirmed = sendStorm(data);
  const last202 = Date.now();
  sendTime.add(last202 - sendStarted);
  if (confirmed !== STORM_OUTCOMES) {
    console.error(
      "settlement-storm: only " + confirmed + " of " + STORM_OUTCOMES + " events confirmed; not waiting for verdicts",
    );
    return false;
  }
  const dueBy = last202 + SETTLEMENT_PERIOD.ms;
  const deadline = dueBy + STORM_TIMEOUT.ms;

  // Nothing can settle before the first event's settles_at.
  const firstDue = sendStarted + SETTLEMENT_PERIOD.ms;
  if (firstDue > Date.now()) sleep((firstDue - Date.now()) / 1000);

  /** @type {string[]} */
  let pending = [];
  for (let i = 0; i < STORM_OUTCOMES; i++) pending.push(outcomeKey(data.runId, i));
  /** @type {Record<string, number>} */
  const byStatus = {};
  let done = false;
  while (!done && Date.now() < deadline) {
    if (POLL_MODE === "list") {
      const none = noneOpen(data);
      if (none === null) return false;
      done = none;
    } else {
      const statuses = readStatuses(pending);
      pending = pending.filter(function (key) {
        const s = statuses[key];
        if (isVerdict(s)) {
          byStatus[s] = (byStatus[s] || 0) + 1;
          verdicts.add(1, { status: s });
          return false;
        }
        return true;
      });
      done = pending.length === 0;
    }
    if (!done && POLL_MS > 0) sleep(POLL_MS / 1000);
  }
  const finished = Date.now();
  if (!done) {
    console.error(
      "settlement-storm: not every outcome had a verdict " + STORM_TIMEOUT.text + " after the last one fell due",
    );
    return false;
  }
  allVerdicts.add(finished - last202);
  settlementLag.add(finished - dueBy);

  // List mode: confirm on a sample of individual outcomes that "none OPEN" means verdicts.
  if (POLL_MODE === "list" && VERIFY_SAMPLE > 0) {
    const n = Math.min(VERIFY_SAMPLE, STORM_OUTCOMES);
    /** @type {string[]} */
    const sample = [];
    for (let j = 0; j < n; j++) sample.push(outcomeKey(data.runId, Math.floor((j * STORM_OUTCOMES) / n)));
    const statuses = readStatuses(sample);
    for (const key of sample) {
      const s = statuses[key];
      check(s, {
        "sampled outcome has a verdict": function (v) {
          return isVerdict(v);
        },
      });
      if (isVerdict(s)) {
        byStatus[s] = (byStatus[s] || 0) + 1;
        verdicts.add(1, { status: s });
      }
    }
  }
  console.log(
    "settlement-storm: all " +
      STORM_OUTCOMES +
      " outcomes have a verdict " +
      (finished - last202) +
      " ms after the last 202; " +
      (POLL_MODE === "list"
        ? "verdicts in a sample of " + Math.min(VERIFY_SAMPLE, STORM_OUTCOMES) + ": "
        : "verdicts: ") +
      JSON.stringify(byStatus),
  );
  return true;
}

/** @param {import("./lib/verdict.js").SummaryData} data */
export function handleSummary(data) {
  const all = data.metrics.storm_all_verdicts_ms;
  const lag = data.metrics.storm_settlement_lag_ms;
  const send = data.metrics.storm_send_ms;
  return summarize("settlement-storm", data, {
    config: {
      STORM_OUTCOMES: STORM_OUTCOMES,
      SETTLEMENT_PERIOD: SETTLEMENT_PERIOD.text,
      CONDITION: CONDITION,
      BATCH_SIZE: BATCH_SIZE,
      SEND_PARALLEL: SEND_PARALLEL,
      POLL_MODE: POLL_MODE,
      POLL_MS: POLL_MS,
      GET_PARALLEL: GET_PARALLEL,
      VERIFY_SAMPLE: VERIFY_SAMPLE,
      STORM_TIMEOUT: STORM_TIMEOUT.text,
      LAG_MAX_MS: LAG_MAX_MS,
      CHECK_RATE: CHECK_RATE,
    },
    figures: {
      outcomes: STORM_OUTCOMES,
      send_ms: send ? send.values.max : null,
      all_verdicts_ms: all ? all.values.max : null,
      settlement_lag_ms: lag ? lag.values.max : null,
    },
    keyMetrics: [
      "storm_complete",
      "storm_send_ms",
      "storm_all_verdicts_ms",
      "storm_settlement_lag_ms",
      "storm_verdicts",
      "checks",
    ],
  });
}
