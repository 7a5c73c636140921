// Model scores: trains one task's cohort with TRAIN outcomes that do a, b, c with values near 10, waits
// for the workers to re-read the merged model (WAIT, above VERDICT_SCORE_REFRESH_MS), then sends OUTLIERS
// outcomes whose b carries 1000 and OUTLIERS that do x then y, and checks each is flagged: anomaly >= 0.99,
// novelty >= 0.9, while the usual ones sent after training stay below. Ends with the sorted listing
// "the most anomalous" and checks that the outliers lead it.
//
//   k6 run -e BASE_URL=http://localhost:8080 -e TOKEN=... bench/k6/scores.js

import http from "k6/http";
import { check, sleep } from "k6";
import { Rate } from "k6/metrics";
import {
  TREND_STATS,
  apiUrl,
  envDuration,
  envInt,
  jsonBody,
  newRunId,
  openOutcomes,
  params,
  pick,
  putTask,
  requireToken,
  summarize,
} from "./lib/verdict.js";

const TRAIN = envInt("TRAIN", 200);
const OUTLIERS = envInt("OUTLIERS", 10);
const WAIT = envDuration("WAIT", "5s");

/** @type {import("k6/options").Options} */
export const options = {
  summaryTrendStats: TREND_STATS,
  scenarios: { scores: { executor: "shared-iterations", vus: 1, iterations: 1, maxDuration: "5m" } },
  thresholds: {
    outlier_flagged: ["rate>0.99"],
    novel_flagged: ["rate>0.99"],
    usual_unflagged: ["rate>0.9"],
    checks: ["rate>0.99"],
  },
};

/** An outlying value scored anomaly >= 0.99. */
const outlierFlagged = new Rate("outlier_flagged");
/** An unseen sequence scored novelty >= 0.9. */
const novelFlagged = new Rate("novel_flagged");
/** A usual outcome after training scored novelty <= 0.3. */
const usualUnflagged = new Rate("usual_unflagged");

/**
 * Opens the outcomes and sends each its steps in one batch request per 100 outcomes (in order per outcome).
 * @param {string[]} keys
 * @param {string} taskKey
 * @param {(i: number) => { action: string, value?: number }[]} steps
 */
function run(keys, taskKey, steps) {
  openOutcomes(keys, taskKey);
  for (let start = 0; start < keys.length; start += 100) {
    /** @type {Record<string, unknown>[]} */
    const events = [];
    keys.slice(start, start + 100).forEach(function (key, n) {
      for (const step of steps(start + n)) {
        events.push({
          outcome_key: key,
          action: step.action,
          properties: step.value === undefined ? {} : { value: step.value },
        });
      }
    });
    const res = http.post(apiUrl("/v1/events/batch"), JSON.stringify({ events: events }), params("events_batch"));
    check(res, {
      "batch accepted": function (r) {
        return r.status === 202;
      },
    });
  }
}

/**
 * Waits until the outcome shows `events` events, then returns its scores.
 * @param {string} key
 * @param {number} events
 * @returns {{ anomaly: number | null, novelty: number | null } | undefined}
 */
function scored(key, events) {
  for (let i = 0; i < 200; i++) {
    const body = jsonBody(http.get(apiUrl("/v1/outcomes/{}", key), params("get_outcome")));
    const observations = /** @type {Record<string, { count: number }>} */ (pick(body, ["observations"]) || {});
    let seen = 0;
    for (const action of Object.keys(observations)) seen += observations[action].count;
    if (seen === events)
      return /** @type {{ anomaly: number | null, novelty: number | null }} */ (pick(body, ["scores"]));
    sleep(0.05);
  }
  return undefined;
}

/** @param {number} i */
function usual(i) {
  return [
    { action: "a", value: 10 + ((i % 5) - 2) / 10 },
    { action: "b", value: 10 + ((i * 3) % 7) / 10 - 0.3 },
    { action: "c", value: 10 },
  ];
}

export default function () {
  requireToken();
  const runId = newRunId("scores");
  const taskKey = runId + "-task";
  putTask(taskKey, { name: "k6 scores " + runId, condition: "c" });
  const keys = function (/** @type {string} */ label, /** @type {number} */ n) {
    return Array.from({ length: n }, function (_, i) {
      return runId + ":" + label + ":" + i;
    });
  };

  run(keys("train", TRAIN), taskKey, usual);
  sleep(WAIT.ms / 1000);

  const outliers = keys("outlier", OUTLIERS);
  const novel = keys("novel", OUTLIERS);
  const normal = keys("usual", OUTLIERS);
  run(outliers, taskKey, function () {
    return [
      { action: "a", value: 10 },
      { action: "b", value: 1000 },
      { action: "c", value: 10 },
    ];
  });
  run(novel, taskKey, function () {
    return [{ action: "x" }, { action: "y" }];
  });
  run(normal, taskKey, function (i) {
    return usual(TRAIN + i);
  });

  for (const key of outliers) {
    const s = scored(key, 3);
    outlierFlagged.add(s !== undefined && s.anomaly !== null && s.anomaly >= 0.99);
  }
  for (const key of novel) {
    const s = scored(key, 2);
    novelFlagged.add(s !== undefined && s.novelty !== null && s.novelty >= 0.9);
  }
  for (const key of normal) {
    const s = scored(key, 3);
    usualUnflagged.add(s !== undefined && s.novelty !== null && s.novelty <= 0.3);
  }

  const top = jsonBody(
    http.get(
      apiUrl("/v1/outcomes?task_key={}&sort=anomaly&order=desc&limit=" + OUTLIERS, taskKey),
      params("list_sorted"),
    ),
  );
  const listed = /** @type {{ key: string }[]} */ (pick(top, ["outcomes"]) || []);
  check(listed, {
    "the outliers lead the most anomalous": function (list) {
      return (
        list.length === OUTLIERS &&
        list.every(function (o) {
          return outliers.indexOf(o.key) >= 0;
        })
      );
    },
  });
}

/** @param {import("./lib/verdict.js").SummaryData} data */
export function handleSummary(data) {
  return summarize("scores", data, {
    config: { TRAIN: TRAIN, OUTLIERS: OUTLIERS, WAIT: WAIT.text },
    keyMetrics: ["outlier_flagged", "novel_flagged", "usual_unflagged"],
  });
}
