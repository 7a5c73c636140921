// Shared helpers for the Verdict k6 scripts: configuration from __ENV, authenticated requests,
// URL building, setup helpers (tasks, outcomes, agents, customers, rate cards) and handleSummary.
//
// Written for k6 v0.48 and later: plain ES modules, no top-level await, no optional chaining or
// nullish coalescing, no object spread. Type-checked with @types/k6 (bench/k6/tsconfig.json).

import http from "k6/http";

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

/**
 * A string from the environment (`k6 run -e NAME=value` or the process environment).
 * @param {string} name
 * @param {string} fallback
 * @returns {string}
 */
export function envString(name, fallback) {
  const value = __ENV[name];
  return value === undefined || value === "" ? fallback : value;
}

/**
 * A number from the environment; throws on a value that is not a finite number.
 * @param {string} name
 * @param {number} fallback
 * @returns {number}
 */
export function envNumber(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!isFinite(value)) throw new Error(name + " must be a number, got " + JSON.stringify(raw));
  return value;
}

/**
 * A positive integer from the environment.
 * @param {string} name
 * @param {number} fallback
 * @returns {number}
 */
export function envInt(name, fallback) {
  const value = envNumber(name, fallback);
  if (Math.floor(value) !== value || value < 1) {
    throw new Error(name + " must be a positive integer, got " + String(value));
  }
  return value;
}

/**
 * A duration from the environment, kept as the k6 string (for scenario options) and in ms.
 * @param {string} name
 * @param {string} fallback
 * @returns {{ text: string, ms: number }}
 */
export function envDuration(name, fallback) {
  const text = envString(name, fallback);
  return { text: text, ms: durationMs(text, name) };
}

/**
 * Parses `500ms`, `30s`, `5m`, `1h30m`, `1d` (a bare number is seconds) into milliseconds.
 * @param {string} text
 * @param {string} [what] name used in the error message
 * @returns {number}
 */
export function durationMs(text, what) {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
  /** @type {Record<string, number>} */
  const unit = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };
  let total = 0;
  let consumed = 0;
  let match = re.exec(text);
  while (match !== null) {
    total += Number(match[1]) * unit[match[2]];
    consumed += match[0].length;
    match = re.exec(text);
  }
  if (consumed === 0 || consumed !== text.length) {
    throw new Error((what || "duration") + " is not a duration (like 30s, 5m, 1h30m): " + JSON.stringify(text));
  }
  return total;
}

/** Base URL of the Verdict deployment, without a trailing slash. */
export const BASE_URL = envString("BASE_URL", "http://localhost:8080").replace(/\/+$/, "");

/**
 * Which event shapes a script sends: `A` (task-based, `outcome_key`), `B` (agent-based, `key` +
 * `customer_key` + `agent_key`) or `mix` (share `B_SHARE` of Variant B, the rest Variant A).
 * @returns {{ variant: string, bShare: number }}
 */
export function variantMix() {
  const variant = envString("VARIANT", "mix");
  if (variant !== "A" && variant !== "B" && variant !== "mix") {
    throw new Error("VARIANT must be A, B or mix, got " + JSON.stringify(variant));
  }
  const share = envNumber("B_SHARE", 0.5);
  if (share < 0 || share > 1) throw new Error("B_SHARE must be between 0 and 1, got " + String(share));
  const bShare = variant === "A" ? 0 : variant === "B" ? 1 : share;
  return { variant: variant, bShare: bShare };
}

/** Directory for `summary-<name>.json` (default: the working directory). */
const SUMMARY_DIR = envString("SUMMARY_DIR", "");

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/**
 * The bearer token; throws a readable error when TOKEN is unset. Call it from setup() so a
 * missing token stops the run before any load is generated.
 * @returns {string}
 */
export function requireToken() {
  const token = __ENV.TOKEN;
  if (token === undefined || token === "") {
    throw new Error("TOKEN is required: k6 run -e TOKEN=... (create one with `npx verdict account create bench`)");
  }
  return token;
}

/** @type {{ [name: string]: string } | null} */
let cachedHeaders = null;

/**
 * Authorization and JSON content-type headers.
 * @returns {{ [name: string]: string }}
 */
export function headers() {
  if (cachedHeaders === null) {
    cachedHeaders = {
      Authorization: "Bearer " + requireToken(),
      "Content-Type": "application/json",
    };
  }
  return cachedHeaders;
}

/**
 * Request params: auth headers, a low-cardinality `endpoint` tag (use it in thresholds) and any
 * extra tags.
 * @param {string} endpoint
 * @param {{ [name: string]: string }} [tags]
 * @returns {import("k6/http").Params}
 */
export function params(endpoint, tags) {
  /** @type {{ [name: string]: string }} */
  const all = { endpoint: endpoint, name: endpoint };
  if (tags) {
    for (const k of Object.keys(tags)) all[k] = tags[k];
  }
  return { headers: headers(), tags: all };
}

/**
 * An absolute URL: `path` is appended to BASE_URL, and each `{}` in it is replaced, in order, by
 * the matching segment passed through encodeURIComponent (keys may contain colons and slashes).
 * @param {string} path like `/v1/outcomes/{}`
 * @param {...string} segments
 * @returns {string}
 */
export function apiUrl(path, ...segments) {
  let i = 0;
  const filled = path.replace(/\{\}/g, function () {
    if (i >= segments.length) throw new Error("apiUrl: missing segment for " + path);
    const seg = segments[i];
    i += 1;
    return encodeURIComponent(seg);
  });
  if (i !== segments.length) throw new Error("apiUrl: too many segments for " + path);
  return BASE_URL + filled;
}

/**
 * A unique prefix for every key a run creates, so reruns against the same account never collide.
 * `RUN_ID` overrides it. Call it in setup() only and pass it to VUs through the setup data: init
 * code runs once per VU, so a value computed there differs between VUs.
 * @param {string} script
 * @returns {string}
 */
export function newRunId(script) {
  const fixed = envString("RUN_ID", "");
  if (fixed !== "") return fixed;
  const rand = Math.floor(Math.random() * 2176782336).toString(36);
  return "bench-" + script + "-" + Date.now().toString(36) + "-" + rand;
}

/**
 * Parses a JSON response body; undefined when the body is empty or not JSON.
 * @param {import("k6/http").Response} res
 * @returns {import("k6").JSONValue | undefined}
 */
export function jsonBody(res) {
  if (typeof res.body !== "string" || res.body === "") return undefined;
  try {
    return /** @type {import("k6").JSONValue} */ (JSON.parse(res.body));
  } catch (_e) {
    return undefined;
  }
}

/**
 * Walks a parsed JSON value along object keys; undefined when any step is missing.
 * @param {import("k6").JSONValue | undefined} value
 * @param {string[]} path
 * @returns {import("k6").JSONValue | undefined}
 */
export function pick(value, path) {
  /** @type {import("k6").JSONValue | undefined} */
  let cur = value;
  for (const key of path) {
    if (cur === null || cur === undefined || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = /** @type {import("k6").JSONObject} */ (cur)[key];
  }
  return cur;
}

/**
 * Short description of a failed response, for error messages.
 * @param {import("k6/http").Response} res
 * @returns {string}
 */
export function describe(res) {
  const body = typeof res.body === "string" ? res.body.slice(0, 300) : "";
  return (
    res.request.method +
    " " +
    res.url +
    " -> " +
    String(res.status) +
    (res.error ? " (" + res.error + ")" : "") +
    " " +
    body
  );
}

/**
 * Sends a request during setup and throws (stopping the run) unless the status is expected.
 * @param {string} method
 * @param {string} url
 * @param {unknown} body serialised as JSON when not undefined
 * @param {number[]} expected
 * @returns {import("k6/http").Response}
 */
function setupRequest(method, url, body, expected) {
  const res = http.request(method, url, body === undefined ? null : JSON.stringify(body), params("setup"));
  if (expected.indexOf(res.status) < 0) throw new Error("setup request failed: " + describe(res));
  return res;
}

// ---------------------------------------------------------------------------------------------
// Setup helpers (decisions.md section 4). PUT answers 201 created / 200 replaced.
// ---------------------------------------------------------------------------------------------

/**
 * @typedef {object} TaskBody
 * @property {string} name
 * @property {string} [goal]
 * @property {string} condition one-line text form or JSON tree
 * @property {string} [settlement_period] like `10s`, `1d`; omit for no settlement
 */

/**
 * Creates or replaces a task.
 * @param {string} key
 * @param {TaskBody} body
 */
export function putTask(key, body) {
  setupRequest("PUT", apiUrl("/v1/tasks/{}", key), body, [200, 201]);
}

/**
 * @typedef {object} AgentBody
 * @property {string} name
 * @property {string} [goal]
 * @property {string} condition
 * @property {string} [settlement_period]
 * @property {"first" | "last" | "min" | "max" | "sum"} [attribution_method]
 */

/**
 * Creates or replaces an agent.
 * @param {string} key
 * @param {AgentBody} body
 */
export function putAgent(key, body) {
  setupRequest("PUT", apiUrl("/v1/agents/{}", key), body, [200, 201]);
}

/**
 * Creates or replaces a rate card.
 * @param {string} key
 * @param {{ currency: string, entries: { agent_key: string, unit_amount: number }[] }} body
 */
export function putRateCard(key, body) {
  setupRequest("PUT", apiUrl("/v1/rate-cards/{}", key), body, [200, 201]);
}

/**
 * Creates or replaces a customer.
 * @param {string} key
 * @param {{ name: string, rate_card_key?: string }} body
 */
export function putCustomer(key, body) {
  setupRequest("PUT", apiUrl("/v1/customers/{}", key), body, [200, 201]);
}

/**
 * Opens outcomes against a task with `POST /v1/outcomes` (201 created, 200 when the same key was
 * already opened on the same task), `parallel` requests at a time. Throws on the first failure.
 * @param {string[]} keys
 * @param {string} taskKey
 * @param {{ parallel?: number, settlesAt?: string }} [options]
 */
export function openOutcomes(keys, taskKey, options) {
  const opts = options || {};
  const parallel = opts.parallel || 50;
  for (let start = 0; start < keys.length; start += parallel) {
    /** @type {import("k6/http").ObjectBatchRequest[]} */
    const reqs = [];
    for (const key of keys.slice(start, start + parallel)) {
      /** @type {{ key: string, task_key: string, settles_at?: string }} */
      const body = { key: key, task_key: taskKey };
      if (opts.settlesAt) body.settles_at = opts.settlesAt;
      reqs.push({
        method: "POST",
        url: apiUrl("/v1/outcomes"),
        body: JSON.stringify(body),
        params: params("setup"),
      });
    }
    const responses = http.batch(reqs);
    for (const res of responses) {
      if (res.status !== 201 && res.status !== 200) throw new Error("opening outcome failed: " + describe(res));
    }
  }
}

/**
 * Opens one outcome (from VU code); returns whether it is open (201 or 200).
 * @param {string} key
 * @param {string} taskKey
 * @returns {boolean}
 */
export function openOutcome(key, taskKey) {
  const res = http.post(
    apiUrl("/v1/outcomes"),
    JSON.stringify({ key: key, task_key: taskKey }),
    params("open_outcome"),
  );
  return res.status === 201 || res.status === 200;
}

/**
 * The resources Variant B events refer to: an agent, a rate card with one entry for it, and a
 * customer on that rate card. Keys are prefixed with the run id.
 * @param {string} runId
 * @param {{ condition: string, settlementPeriod?: string }} contract
 * @returns {{ agentKey: string, customerKey: string, rateCardKey: string }}
 */
export function setupVariantB(runId, contract) {
  const agentKey = runId + "-agent";
  const rateCardKey = runId + "-rate-card";
  const customerKey = runId + "-customer";
  /** @type {AgentBody} */
  const agent = {
    name: "k6 bench agent " + runId,
    goal: "Load test",
    condition: contract.condition,
    attribution_method: "last",
  };
  if (contract.settlementPeriod) agent.settlement_period = contract.settlementPeriod;
  putAgent(agentKey, agent);
  putRateCard(rateCardKey, { currency: "USD", entries: [{ agent_key: agentKey, unit_amount: 100 }] });
  putCustomer(customerKey, { name: "k6 bench customer " + runId, rate_card_key: rateCardKey });
  return { agentKey: agentKey, customerKey: customerKey, rateCardKey: rateCardKey };
}

// ---------------------------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------------------------

/**
 * @typedef {object} SummaryMetric
 * @property {string} type
 * @property {string} contains
 * @property {Record<string, number>} values
 * @property {Record<string, { ok: boolean }>} [thresholds]
 */

/**
 * The object k6 passes to handleSummary (the parts used here).
 * @typedef {object} SummaryData
 * @property {Record<string, SummaryMetric>} metrics
 * @property {{ testRunDurationMs: number }} state
 * @property {unknown} [setup_data]
 */

/**
 * @param {number} n
 * @returns {string}
 */
function fmt(n) {
  if (!isFinite(n)) return String(n);
  if (Math.abs(n) >= 100 || Math.floor(n) === n) return String(Math.round(n * 10) / 10);
  return n.toFixed(3).replace(/\.?0+$/, "");
}

/**
 * One metric on one line: `name  p(50)=1.2 p(99)=3.4 ...`.
 * @param {string} name
 * @param {SummaryMetric} metric
 * @returns {string}
 */
function metricLine(name, metric) {
  const parts = [];
  for (const stat of Object.keys(metric.values)) {
    const unit =
      metric.contains === "time" && stat !== "count" && stat !== "rate"
        ? "ms"
        : stat === "rate" && metric.type === "counter"
          ? "/s"
          : "";
    parts.push(stat + "=" + fmt(metric.values[stat]) + unit);
  }
  return "  " + name + "  " + parts.join(" ");
}

/**
 * handleSummary helper: writes `summary-<script>.json` (the script's configuration, its own
 * figures, threshold results and every metric's values) and returns a short text summary for
 * stdout.
 * @param {string} script
 * @param {SummaryData} data
 * @param {{ config: Record<string, unknown>, keyMetrics: string[], figures?: Record<string, unknown> }} extra
 * @returns {Record<string, string>}
 */
export function summarize(script, data, extra) {
  /** @type {{ metric: string, threshold: string, ok: boolean }[]} */
  const thresholds = [];
  /** @type {Record<string, Record<string, number>>} */
  const values = {};
  for (const name of Object.keys(data.metrics)) {
    const metric = data.metrics[name];
    values[name] = metric.values;
    const th = metric.thresholds;
    if (th) {
      for (const expr of Object.keys(th)) thresholds.push({ metric: name, threshold: expr, ok: th[expr].ok });
    }
  }
  const missed = thresholds.filter(function (t) {
    return !t.ok;
  });
  const passed = missed.length === 0;
  const file = (SUMMARY_DIR === "" ? "" : SUMMARY_DIR.replace(/\/+$/, "") + "/") + "summary-" + script + ".json";
  const json = {
    script: script,
    generated_at: new Date().toISOString(),
    base_url: BASE_URL,
    passed: passed,
    test_run_duration_ms: data.state.testRunDurationMs,
    config: extra.config,
    figures: extra.figures || {},
    thresholds: thresholds,
    metrics: values,
  };

  const lines = [];
  lines.push("");
  lines.push(
    "verdict k6 " +
      script +
      ": " +
      (passed
        ? "PASSED (all " + thresholds.length + " thresholds met)"
        : "FAILED (" + missed.length + " of " + thresholds.length + " thresholds missed)"),
  );
  lines.push("  base_url=" + BASE_URL + " run=" + fmt(data.state.testRunDurationMs / 1000) + "s");
  const figures = extra.figures || {};
  for (const k of Object.keys(figures)) lines.push("  " + k + ": " + JSON.stringify(figures[k]));
  /** @type {Record<string, boolean>} */
  const shown = {};
  /** @type {string[]} */
  const names = [];
  for (const name of extra.keyMetrics.concat(
    thresholds.map(function (t) {
      return t.metric;
    }),
  )) {
    if (data.metrics[name] && !shown[name]) {
      shown[name] = true;
      names.push(name);
    }
  }
  for (const name of names) lines.push(metricLine(name, data.metrics[name]));
  if (thresholds.length > 0) lines.push("thresholds:");
  for (const t of thresholds) lines.push("  " + (t.ok ? "ok   " : "MISS ") + t.metric + " " + t.threshold);
  lines.push("summary written to " + file);
  lines.push("");

  /** @type {Record<string, string>} */
  const out = {};
  out.stdout = lines.join("\n") + "\n";
  out[file] = JSON.stringify(json, null, 2) + "\n";
  return out;
}

/** Trend statistics shown in summaries (adds p(99) and count to k6's defaults). */
export const TREND_STATS = ["avg", "min", "med", "p(90)", "p(95)", "p(99)", "max", "count"];

/**
 * What setup() hands every VU in the mixed-variant scripts.
 * @typedef {object} MixedRun
 * @property {string} runId
 * @property {string} taskKey
 * @property {string} agentKey
 * @property {string} customerKey
 */

/**
 * The key of outcome `i` of a variant ("a" task-based, "b" agent-based) in a run; keys carry colons on
 * purpose, so the service's path decoding is exercised too.
 * @param {string} runId
 * @param {string} variant
 * @param {number} i
 * @returns {string}
 */
export function mixedOutcomeKey(runId, variant, i) {
  return runId + ":" + variant + ":" + i;
}

/**
 * Sets up a run mixing both variants: a task with `outcomes` opened outcomes for Variant A (when some
 * events are A), and an agent, rate card and customer for Variant B (when some are B).
 * @param {string} name script name, for keys and the log line
 * @param {{ bShare: number }} mix
 * @param {{ outcomes: number, condition: string, openParallel: number }} options
 * @returns {MixedRun}
 */
export function setupMixedRun(name, mix, options) {
  requireToken();
  const runId = newRunId(name);
  const data = { runId: runId, taskKey: runId + "-task", agentKey: "", customerKey: "" };
  if (mix.bShare < 1) {
    putTask(data.taskKey, { name: "k6 " + name + " " + runId, goal: "Load test", condition: options.condition });
    /** @type {string[]} */
    const keys = [];
    for (let i = 0; i < options.outcomes; i++) keys.push(mixedOutcomeKey(runId, "a", i));
    openOutcomes(keys, data.taskKey, { parallel: options.openParallel });
  }
  if (mix.bShare > 0) {
    const b = setupVariantB(runId, { condition: options.condition });
    data.agentKey = b.agentKey;
    data.customerKey = b.customerKey;
  }
  console.log(name + ": run " + runId + ", " + options.outcomes + " outcomes per variant, B share " + mix.bShare);
  return data;
}
