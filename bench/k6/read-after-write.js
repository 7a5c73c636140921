// Read-after-write: each iteration sends one event (`POST /v1/events`) to the VU's own outcome, then
// polls `GET /v1/outcomes/{key}` until `observations[action].count` includes it. The custom Trend
// `visible_after_202` is the time in ms from receiving the 202 to receiving the first GET that
// shows the event (an upper bound: it includes that GET's round trip; resolution POLL_MS).
//
//   k6 run -e BASE_URL=http://localhost:8080 -e TOKEN=... bench/k6/read-after-write.js

import http from "k6/http";
import { check, sleep } from "k6";
import exec from "k6/execution";
import { Counter, Rate, Trend } from "k6/metrics";
import {
  TREND_STATS,
  apiUrl,
  envDuration,
  envInt,
  envNumber,
  jsonBody,
  newRunId,
  openOutcome,
  params,
  pick,
  putTask,
  requireToken,
  setupVariantB,
  summarize,
  variantMix,
} from "./lib/verdict.js";

const RATE = envInt("RATE", 50);
const DURATION = envDuration("DURATION", "60s");
const PRE_VUS = envInt("PRE_VUS", 20);
const MAX_VUS = envInt("MAX_VUS", 200);
const MIX = variantMix();
const POLL_MS = envNumber("POLL_MS", 5);
const VISIBLE_TIMEOUT = envDuration("VISIBLE_TIMEOUT", "5s");
const VISIBLE_P99_MS = envNumber("VISIBLE_P99_MS", 100);
const VISIBLE_RATE = envNumber("VISIBLE_RATE", 0.99);
const P99_MS = envNumber("P99_MS", 50);
const ERROR_RATE = envNumber("ERROR_RATE", 0.01);
const CHECK_RATE = envNumber("CHECK_RATE", 0.99);

const CONDITION = "bench_done";
const ACTION = "raw_step";

/** @type {import("k6/options").Options} */
export const options = {
  summaryTrendStats: TREND_STATS,
  scenarios: {
    read_after_write: {
      executor: "constant-arrival-rate",
      rate: RATE,
      timeUnit: "1s",
      duration: DURATION.text,
      preAllocatedVUs: PRE_VUS,
      maxVUs: MAX_VUS,
      gracefulStop: Math.ceil(VISIBLE_TIMEOUT.ms / 1000) + 10 + "s",
    },
  },
  thresholds: {
    visible_after_202: ["p(99)<" + VISIBLE_P99_MS],
    visible_in_time: ["rate>" + VISIBLE_RATE],
    "http_req_failed{endpoint:events}": ["rate<" + ERROR_RATE],
    "http_req_duration{endpoint:events}": ["p(99)<" + P99_MS],
    checks: ["rate>" + CHECK_RATE],
  },
};

/** ms from the 202 of an event to the first GET whose observation count includes it. */
const visibleAfter202 = new Trend("visible_after_202", true);
/** Whether the event became visible within VISIBLE_TIMEOUT. */
const visibleInTime = new Rate("visible_in_time");
/** GETs needed until the event was visible. */
const pollsUntilVisible = new Trend("polls_until_visible");
/** Events that were not visible within VISIBLE_TIMEOUT. */
const notVisible = new Counter("not_visible");

/**
 * @typedef {object} SetupData
 * @property {string} runId
 * @property {string} taskKey
 * @property {string} agentKey
 * @property {string} customerKey
 */

/** @returns {SetupData} */
export function setup() {
  requireToken();
  const runId = newRunId("raw");
  const data = { runId: runId, taskKey: runId + "-task", agentKey: "", customerKey: "" };
  if (MIX.bShare < 1)
    putTask(data.taskKey, { name: "k6 read-after-write " + runId, goal: "Load test", condition: CONDITION });
  if (MIX.bShare > 0) {
    const b = setupVariantB(runId, { condition: CONDITION });
    data.agentKey = b.agentKey;
    data.customerKey = b.customerKey;
  }
  console.log("read-after-write: run " + runId + ", one outcome per VU, B share " + MIX.bShare);
  return data;
}

// Per-VU state (each VU has its own copy of module scope): the VU's outcome and how many events it
// has had accepted for it. Only this VU writes to its outcome, so the expected count is known.
let opened = false;
let accepted = 0;

/** @param {SetupData} data */
export default function (data) {
  const vu = exec.vu.idInTest;
  // Spread Variant B over VUs deterministically (golden-ratio sequence), B_SHARE of them.
  const variant = (vu * 0.6180339887) % 1 < MIX.bShare ? "B" : "A";
  const key = data.runId + ":raw:" + variant.toLowerCase() + ":" + vu;

  if (variant === "A" && !opened) {
    opened = openOutcome(key, data.taskKey);
    if (
      !check(opened, {
        "outcome opened": function (ok) {
          return ok;
        },
      })
    )
      return;
  }

  /** @type {Record<string, unknown>} */
  const event =
    variant === "A"
      ? { outcome_key: key, action: ACTION, properties: { value: accepted + 1 } }
      : {
          key: key,
          customer_key: data.customerKey,
          agent_key: data.agentKey,
          action: ACTION,
          properties: { value: accepted + 1 },
        };
  const res = http.post(apiUrl("/v1/events"), JSON.stringify(event), params("events", { variant: variant }));
  const ok = check(res, {
    "event status is 202": function (r) {
      return r.status === 202;
    },
  });
  if (!ok) return;
  const t202 = Date.now();
  accepted += 1;

  // A Variant B outcome is created by its first event, asynchronously: 404 until then is expected.
  const getParams = Object.assign(params("outcome_get", { variant: variant }), {
    responseCallback: http.expectedStatuses(200, 404),
  });
  const url = apiUrl("/v1/outcomes/{}", key);
  const deadline = t202 + VISIBLE_TIMEOUT.ms;
  let polls = 0;
  for (;;) {
    const g = http.get(url, getParams);
    polls += 1;
    if (g.status === 200) {
      const count = pick(jsonBody(g), ["observations", ACTION, "count"]);
      if (typeof count === "number" && count >= accepted) {
        visibleAfter202.add(Date.now() - t202, { variant: variant });
        pollsUntilVisible.add(polls);
        visibleInTime.add(true);
        return;
      }
    }
    if (Date.now() >= deadline) {
      visibleInTime.add(false);
      notVisible.add(1);
      return;
    }
    if (POLL_MS > 0) sleep(POLL_MS / 1000);
  }
}

/** @param {import("./lib/verdict.js").SummaryData} data */
export function handleSummary(data) {
  return summarize("read-after-write", data, {
    config: {
      RATE: RATE,
      DURATION: DURATION.text,
      VARIANT: MIX.variant,
      B_SHARE: MIX.bShare,
      PRE_VUS: PRE_VUS,
      MAX_VUS: MAX_VUS,
      POLL_MS: POLL_MS,
      VISIBLE_TIMEOUT: VISIBLE_TIMEOUT.text,
      VISIBLE_P99_MS: VISIBLE_P99_MS,
      VISIBLE_RATE: VISIBLE_RATE,
      P99_MS: P99_MS,
      ERROR_RATE: ERROR_RATE,
      CHECK_RATE: CHECK_RATE,
    },
    keyMetrics: [
      "visible_after_202",
      "visible_in_time",
      "polls_until_visible",
      "not_visible",
      "http_req_duration{endpoint:events}",
      "checks",
    ],
  });
}
