// typia-compiled validators for events (both variants of decisions.md section 1) and batches.
import typia, { type IValidation, type tags } from "typia";
import { ApiError, type ErrorDetail } from "../errors/api-error.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { INSTANT_RULE, parseInstant } from "./instant.js";
import { WELL_FORMED_RULE, isWellFormed } from "./well-formed.js";

/** Most events per batch. */
export const MAX_BATCH_EVENTS = 500;
/** Deepest nesting of `properties` values: packing and reading back stay far from any stack limit. */
export const MAX_PROPERTIES_DEPTH = 32;
/** At most this many problems are reported for one request. */
const MAX_DETAILS = 100;

type Key = string & tags.MinLength<1> & tags.MaxLength<512>;
type Action = string & tags.MinLength<1> & tags.MaxLength<128>;

export interface EventProperties {
  /** Overrides the outcome's next settles_at. */
  settles_at?: string & tags.Format<"date-time">;
  [name: string]: unknown;
}

/** Variant A: names an existing outcome opened from a task. */
export interface TaskEventInput {
  outcome_key: Key;
  action: Action;
  properties?: EventProperties;
  idempotency_key?: Key;
}

/** Variant B: an unseen key creates the outcome for the customer (and agent). */
export interface AgentEventInput {
  key: Key;
  customer_key: Key;
  agent_key?: Key;
  action: Action;
  properties?: EventProperties;
  idempotency_key?: Key;
}

interface BatchInput {
  /** Items are validated one by one (for per-item pointers); the 1..500 length is checked beside. */
  events: unknown[];
}

// Equals-validators: an unknown field (say `idempotencyKey`) is an error, not silently dropped.
const validateTaskEvent = typia.createValidateEquals<TaskEventInput>();
const validateAgentEvent = typia.createValidateEquals<AgentEventInput>();
const validateBatch = typia.createValidateEquals<BatchInput>();

/** The fields that name things (shards hash them, Redis keys hold them): well-formed text only. */
const TEXT_FIELDS = ["outcome_key", "key", "customer_key", "agent_key", "action", "idempotency_key"] as const;

/** Who sent the events and when they arrived: stamped on every envelope. */
export interface Stamp {
  accountId: string;
  receivedAt: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(error: IValidation.IError): string {
  if (error.expected === "undefined") return "unknown field";
  if (error.value === undefined) return "is required";
  return `must be ${error.expected}`;
}

function pathOf(prefix: string, typiaPath: string): string {
  const rest = typiaPath.startsWith("$input") ? typiaPath.slice("$input".length) : typiaPath;
  if (prefix === "") return rest.startsWith(".") ? rest.slice(1) : rest === "" ? "$" : rest;
  return `${prefix}${rest}`;
}

/**
 * The first thing inside `properties` that would not come back as sent, or undefined: nesting past the
 * limit (checked without recursing past it), a number JSON.parse made infinite (1e400) or rounded (an
 * integer past 2^53), or a `__proto__` name, which the packer renames. Refused rather than changed.
 */
function propertiesProblem(value: unknown, path: string, depth: number): ErrorDetail | undefined {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { path, message: "must be a finite number" };
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      return {
        path,
        message: "an integer must be within ±9007199254740991 to be kept exactly (send larger ones as strings)",
      };
    }
    return undefined;
  }
  if (typeof value === "string") return isWellFormed(value) ? undefined : { path, message: WELL_FORMED_RULE };
  if (typeof value !== "object" || value === null) return undefined;
  if (depth > MAX_PROPERTIES_DEPTH)
    return { path: "", message: `must not nest deeper than ${MAX_PROPERTIES_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = propertiesProblem(value[i], `${path}[${i}]`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [name, child] of Object.entries(value)) {
    if (name === "__proto__")
      return { path: `${path}.__proto__`, message: "the property name __proto__ is not allowed" };
    if (!isWellFormed(name)) return { path: `${path}.${name}`, message: `the property name ${WELL_FORMED_RULE}` };
    const problem = propertiesProblem(child, `${path}.${name}`, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Validates one event into its envelope; problems are pushed to `details` with paths under `prefix`
 * (e.g. `events[3]`). Envelopes are built field by field in one order, so they share a few hidden
 * classes and pack fast.
 */
function checkEvent(input: unknown, prefix: string, stamp: Stamp, details: ErrorDetail[]): EventEnvelope | undefined {
  const at = (field: string): string => (prefix === "" ? field : `${prefix}.${field}`);
  if (!isObject(input)) {
    details.push({ path: prefix === "" ? "$" : prefix, message: "must be an event object" });
    return undefined;
  }
  if ("outcome_key" in input && "key" in input) {
    details.push({
      path: at("key"),
      message: "an event carries either outcome_key (task-based) or key (agent-based), not both",
    });
    return undefined;
  }
  if (input.properties !== undefined) {
    const problem = propertiesProblem(input.properties, at("properties"), 1);
    if (problem) {
      // Depth is reported at `properties` itself: the path to the 33rd level says nothing useful.
      details.push(problem.path === "" ? { path: at("properties"), message: problem.message } : problem);
      return undefined;
    }
  }
  let envelope: EventEnvelope;
  if ("outcome_key" in input) {
    const result = validateTaskEvent(input);
    if (!result.success) {
      for (const error of result.errors) details.push({ path: pathOf(prefix, error.path), message: describe(error) });
      return undefined;
    }
    const event = result.data;
    envelope = {
      accountId: stamp.accountId,
      outcomeKey: event.outcome_key,
      variant: "A",
      action: event.action,
      receivedAt: stamp.receivedAt,
    };
  } else {
    const result = validateAgentEvent(input);
    if (!result.success) {
      for (const error of result.errors) details.push({ path: pathOf(prefix, error.path), message: describe(error) });
      return undefined;
    }
    const event = result.data;
    envelope = {
      accountId: stamp.accountId,
      outcomeKey: event.key,
      variant: "B",
      action: event.action,
      receivedAt: stamp.receivedAt,
    };
    envelope.customerKey = event.customer_key;
    if (event.agent_key !== undefined) envelope.agentKey = event.agent_key;
  }
  const { properties, idempotency_key: idempotencyKey } = input as {
    properties?: Record<string, unknown>;
    idempotency_key?: string;
  };
  for (const field of TEXT_FIELDS) {
    const text = input[field];
    if (typeof text === "string" && !isWellFormed(text)) {
      details.push({ path: at(field), message: WELL_FORMED_RULE });
      return undefined;
    }
  }
  if (typeof properties?.settles_at === "string" && parseInstant(properties.settles_at) === undefined) {
    details.push({ path: at("properties.settles_at"), message: `must be ${INSTANT_RULE}` });
    return undefined;
  }
  if (properties !== undefined) envelope.properties = properties;
  if (idempotencyKey !== undefined) envelope.idempotencyKey = idempotencyKey;
  return envelope;
}

function validationError(details: ErrorDetail[]): ApiError {
  const shown = details.slice(0, MAX_DETAILS);
  const more = details.length > shown.length ? ` (first ${shown.length} of ${details.length} shown)` : "";
  return new ApiError("VALIDATION_ERROR", `request body is invalid${more}`, shown);
}

/** The single event of POST /v1/events as its envelope, or VALIDATION_ERROR. */
export function parseEvent(body: unknown, stamp: Stamp): EventEnvelope {
  if (body === undefined)
    throw new ApiError("VALIDATION_ERROR", "request body is required", [{ path: "$", message: "is required" }]);
  const details: ErrorDetail[] = [];
  const event = checkEvent(body, "", stamp, details);
  if (!event) throw validationError(details);
  return event;
}

/** Every event of POST /v1/events/batch, validated whole before any is enqueued, or VALIDATION_ERROR. */
export function parseBatch(body: unknown, stamp: Stamp): EventEnvelope[] {
  if (body === undefined)
    throw new ApiError("VALIDATION_ERROR", "request body is required", [{ path: "$", message: "is required" }]);
  const shape = validateBatch(body);
  if (!shape.success) {
    throw validationError(shape.errors.map((error) => ({ path: pathOf("", error.path), message: describe(error) })));
  }
  const count = shape.data.events.length;
  if (count < 1 || count > MAX_BATCH_EVENTS) {
    throw validationError([{ path: "events", message: `must hold 1 to ${MAX_BATCH_EVENTS} events (got ${count})` }]);
  }
  const details: ErrorDetail[] = [];
  const events: EventEnvelope[] = [];
  const items = shape.data.events;
  for (let index = 0; index < items.length; index++) {
    const event = checkEvent(items[index], `events[${index}]`, stamp, details);
    if (event) events.push(event);
  }
  if (details.length > 0) throw validationError(details);
  return events;
}

/** One event body validated into its envelope, or the problems that refuse it (other callers than the routes). */
export function validateEvent(input: unknown, stamp: Stamp): EventEnvelope | ErrorDetail[] {
  const details: ErrorDetail[] = [];
  return checkEvent(input, "", stamp, details) ?? details;
}
