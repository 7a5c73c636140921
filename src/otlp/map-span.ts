// One span to what it becomes: events for an outcome (with the keys it names itself), or why it has none.
import { actionOf, conditionSafe, MAX_ACTION_LENGTH } from "./action-name.js";
import { firstKey, numberOf, textOf } from "./attributes.js";
import { OUTCOME_KEY_ATTRIBUTE, type OtlpMapping } from "./mapping-config.js";
import { spanFamily } from "./span-family.js";
import { spanProperties } from "./span-properties.js";
import type { Attributes, OtlpSpan } from "./spans.js";

/** The keys a span names itself; a span's trace lends the missing ones (trace-keys.ts). */
export interface SpanKeys {
  outcome?: string;
  task?: string;
  agent?: string;
  customer?: string;
}

export interface MappedEvent {
  action: string;
  properties: Record<string, unknown>;
  idempotencyKey: string;
}

/** A span the mapping turned into events, still without the keys its trace may lend it. */
export interface MappedSpan {
  traceId: string;
  spanId: string;
  /** Root of its trace (no parent): its keys are preferred as the trace's. */
  root: boolean;
  /** Its parent's span id ("" for a root): a parent's event applies after its children's. */
  parentSpanId: string;
  startNs: number;
  endNs: number;
  keys: SpanKeys;
  /** The span's own event, then one per evaluation result it carries. */
  events: MappedEvent[];
}

/** Why a span was not mapped. `dropped` spans are not agent spans (counted only); `rejected` ones are refused. */
export type SpanVerdict =
  | { kind: "mapped"; span: MappedSpan }
  | { kind: "dropped"; reason: "not_genai" | "vercel_wrapper" }
  | { kind: "rejected"; reason: "bad_ids" | "bad_action"; message: string };

const ZERO = /^0+$/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_SPAN_ID = "0".repeat(16);

/** The decoders give ids as lowercase hex (spans.ts): what is left to refuse is a wrong length or all zeros. */
function validIds(span: OtlpSpan): boolean {
  return (
    span.traceId.length === 32 &&
    span.spanId.length === 16 &&
    span.traceId !== ZERO_TRACE_ID &&
    span.spanId !== ZERO_SPAN_ID
  );
}

const EXPLICIT_OUTCOME = [OUTCOME_KEY_ATTRIBUTE];

function keysOf(span: Attributes, resource: Attributes, mapping: OtlpMapping): SpanKeys {
  const keys: SpanKeys = {};
  const outcome =
    firstKey(EXPLICIT_OUTCOME, span, resource) ?? firstKey(mapping.outcome_key_attributes, span, resource);
  if (outcome !== undefined) keys.outcome = outcome;
  const task = firstKey(mapping.task_key_attributes, span, resource);
  if (task !== undefined) keys.task = task;
  const agent = firstKey(mapping.agent_key_attributes, span, resource);
  if (agent !== undefined) keys.agent = agent;
  const customer = firstKey(mapping.customer_key_attributes, span, resource);
  if (customer !== undefined) keys.customer = customer;
  return keys;
}

/** `eval.<gen_ai.evaluation.name>` events, their value the score. */
function evaluationEvents(span: OtlpSpan, idempotencyKey: string): MappedEvent[] {
  const events: MappedEvent[] = [];
  span.events.forEach((event, i) => {
    if (event.name !== "gen_ai.evaluation.result") return;
    const action = conditionSafe(`eval.${textOf(event.attributes.get("gen_ai.evaluation.name")) ?? "result"}`);
    if (action.length > MAX_ACTION_LENGTH) return;
    const properties: Record<string, unknown> = {
      value: numberOf(event.attributes.get("gen_ai.evaluation.score.value")) ?? null,
    };
    const label = textOf(event.attributes.get("gen_ai.evaluation.score.label"));
    if (label !== undefined) properties.label = label;
    properties.trace_id = span.traceId;
    properties.span_id = span.spanId;
    events.push({ action, properties, idempotencyKey: `${idempotencyKey}:eval:${i}` });
  });
  return events;
}

/** What the mapping makes of one span of `resource`. */
export function mapSpan(span: OtlpSpan, resource: Attributes, mapping: OtlpMapping): SpanVerdict {
  const family = spanFamily(span);
  if (family === undefined) return { kind: "dropped", reason: "not_genai" };
  if (!validIds(span))
    return {
      kind: "rejected",
      reason: "bad_ids",
      message: "a span's trace id must be 16 bytes and its span id 8, not all zero",
    };
  const action = actionOf(span, family);
  if ("skip" in action) return { kind: "dropped", reason: "vercel_wrapper" };
  if ("invalid" in action) return { kind: "rejected", reason: "bad_action", message: action.invalid };
  const idempotencyKey = `otlp:${span.traceId}:${span.spanId}`;
  const own: MappedEvent = {
    action: action.action,
    properties: spanProperties(span, action.role, mapping.include_attributes),
    idempotencyKey,
  };
  return {
    kind: "mapped",
    span: {
      traceId: span.traceId,
      spanId: span.spanId,
      root: span.parentSpanId === "" || ZERO.test(span.parentSpanId),
      parentSpanId: span.parentSpanId,
      startNs: span.startNs,
      endNs: span.endNs,
      keys: keysOf(span.attributes, resource, mapping),
      events: span.events.length === 0 ? [own] : [own, ...evaluationEvents(span, idempotencyKey)],
    },
  };
}
