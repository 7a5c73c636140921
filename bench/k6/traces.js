// OTLP trace ingest: `POST /v1/traces` with OTLP/JSON requests of SPANS spans (default 512, the
// OpenTelemetry SDKs' batch) at a constant arrival rate of requests. Each request holds SPANS / 4 GenAI
// conversations (an `invoke_agent` span with `gen_ai.conversation.id`, two `chat` spans and an
// `execute_tool` span, children first as an exporter sends them) over OUTCOMES conversation keys, Variant B
// through the resource's `verdict.customer_key`. Every request must come back 200 with no rejected span.
//
//   k6 run -e BASE_URL=http://localhost:8080 -e TOKEN=... bench/k6/traces.js

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
  newRunId,
  params,
  pick,
  requireToken,
  setupVariantB,
  summarize,
} from "./lib/verdict.js";

const REQUEST_RATE = envInt("REQUEST_RATE", 20);
const SPANS = envInt("SPANS", 512);
const DURATION = envDuration("DURATION", "60s");
const PRE_VUS = envInt("PRE_VUS", 20);
const MAX_VUS = envInt("MAX_VUS", 200);
const OUTCOMES = envInt("OUTCOMES", 2000);
const P99_MS = envNumber("P99_MS", 500);
const ERROR_RATE = envNumber("ERROR_RATE", 0.01);
const CHECK_RATE = envNumber("CHECK_RATE", 0.99);
const MAX_DROPPED = envNumber("MAX_DROPPED", Math.floor((REQUEST_RATE * DURATION.ms) / 1000 / 100));
if (SPANS % 4 !== 0) throw new Error("SPANS must be a multiple of 4 (spans per conversation)");

/** @type {import("k6/options").Options} */
export const options = {
  summaryTrendStats: TREND_STATS,
  scenarios: {
    traces: {
      executor: "constant-arrival-rate",
      rate: REQUEST_RATE,
      timeUnit: "1s",
      duration: DURATION.text,
      preAllocatedVUs: PRE_VUS,
      maxVUs: MAX_VUS,
    },
  },
  thresholds: {
    "http_req_failed{endpoint:traces}": ["rate<" + ERROR_RATE],
    "http_req_duration{endpoint:traces}": ["p(99)<" + P99_MS],
    checks: ["rate>" + CHECK_RATE],
    spans_rejected: ["count<1"],
    dropped_iterations: ["count<=" + MAX_DROPPED],
  },
};

/** Spans put in a request (counted whatever the answer). */
const spansSent = new Counter("spans_sent");
/** Spans named in a partial_success, plus every span of a request not answered 200. */
const spansRejected = new Counter("spans_rejected");

/**
 * @typedef {object} TracesRun
 * @property {string} runId
 * @property {string} agentKey
 * @property {string} customerKey
 */

/** @returns {TracesRun} */
export function setup() {
  requireToken();
  const runId = newRunId("traces");
  // The agent and customer exist, with a rate card, so the events apply (condition never met: outcomes stay open).
  const b = setupVariantB(runId, { condition: "bench_done" });
  console.log("traces: run " + runId + ", " + OUTCOMES + " conversation keys, " + SPANS + " spans per request");
  return { runId: runId, agentKey: b.agentKey, customerKey: b.customerKey };
}

/**
 * @param {number} bytes
 * @returns {string}
 */
function hexId(bytes) {
  let out = "";
  for (let i = 0; i < bytes * 2; i++) out += Math.floor(Math.random() * 16).toString(16);
  return out;
}

/**
 * @param {string} key
 * @param {string | number | string[]} value
 */
function attribute(key, value) {
  if (Array.isArray(value))
    return {
      key: key,
      value: {
        arrayValue: {
          values: value.map(function (v) {
            return { stringValue: v };
          }),
        },
      },
    };
  if (typeof value === "number") return { key: key, value: { intValue: String(value) } };
  return { key: key, value: { stringValue: value } };
}

/**
 * @param {string} traceId
 * @param {string} parent
 * @param {string} name
 * @param {number} startMs
 * @param {number} endMs
 * @param {Record<string, string | number | string[]>} attrs
 */
function span(traceId, parent, name, startMs, endMs, attrs) {
  return {
    traceId: traceId,
    spanId: hexId(8),
    parentSpanId: parent,
    name: name,
    kind: 1,
    startTimeUnixNano: String(startMs) + "000000",
    endTimeUnixNano: String(endMs) + "000000",
    attributes: Object.keys(attrs).map(function (k) {
      return attribute(k, attrs[k]);
    }),
  };
}

/**
 * The four spans of one conversation, children first.
 * @param {TracesRun} data
 * @param {number} n
 */
function conversation(data, n) {
  const traceId = hexId(16);
  const root = hexId(8);
  const start = Date.now() - 1000;
  /** @param {number} from @param {number} to @param {string} finish */
  function chat(from, to, finish) {
    return span(traceId, root, "chat gpt-4o", start + from, start + to, {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.usage.input_tokens": 100 + (n % 50),
      "gen_ai.usage.output_tokens": 20 + (n % 7),
      "gen_ai.response.finish_reasons": [finish],
    });
  }
  const agent = span(traceId, "", "invoke_agent " + data.agentKey, start, start + 510, {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": data.agentKey,
    "gen_ai.conversation.id": data.runId + ":c:" + String(n % OUTCOMES),
  });
  agent.spanId = root;
  const tool = span(traceId, root, "execute_tool refund", start + 210, start + 260, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "refund",
  });
  return [chat(1, 200, "tool_calls"), tool, chat(270, 500, "stop"), agent];
}

/** @param {TracesRun} data */
export default function (data) {
  const first = exec.scenario.iterationInTest * (SPANS / 4);
  /** @type {Record<string, unknown>[]} */
  let spans = [];
  for (let c = 0; c < SPANS / 4; c++) spans = spans.concat(conversation(data, first + c));
  const body = {
    resourceSpans: [
      {
        resource: {
          attributes: [attribute("service.name", "k6-traces"), attribute("verdict.customer_key", data.customerKey)],
        },
        scopeSpans: [{ scope: { name: "k6" }, spans: spans }],
      },
    ],
  };
  const res = http.post(apiUrl("/v1/traces"), JSON.stringify(body), params("traces"));
  spansSent.add(SPANS);
  const rejected = pick(jsonBody(res), ["partialSuccess", "rejectedSpans"]);
  const rejectedCount = res.status !== 200 ? SPANS : rejected === undefined ? 0 : Number(rejected);
  spansRejected.add(rejectedCount);
  check(res, {
    "status is 200": function (r) {
      return r.status === 200;
    },
    "no span rejected": function () {
      return rejectedCount === 0;
    },
  });
}

/** @param {import("./lib/verdict.js").SummaryData} data */
export function handleSummary(data) {
  const seconds = DURATION.ms / 1000;
  const sent = data.metrics.spans_sent;
  const rejected = data.metrics.spans_rejected;
  const accepted = (sent ? sent.values.count : 0) - (rejected ? rejected.values.count : 0);
  return summarize("traces", data, {
    config: {
      REQUEST_RATE: REQUEST_RATE,
      SPANS: SPANS,
      DURATION: DURATION.text,
      OUTCOMES: OUTCOMES,
      PRE_VUS: PRE_VUS,
      MAX_VUS: MAX_VUS,
      P99_MS: P99_MS,
      ERROR_RATE: ERROR_RATE,
      CHECK_RATE: CHECK_RATE,
      MAX_DROPPED: MAX_DROPPED,
    },
    figures: {
      spans_sent: sent ? sent.values.count : 0,
      accepted_spans_per_s_over_duration: Math.round(accepted / seconds),
    },
    keyMetrics: ["http_req_duration{endpoint:traces}", "spans_sent", "spans_rejected", "dropped_iterations", "checks"],
  });
}
