// The keys a trace lends its spans: frameworks name the conversation on the agent span only, so its
// children (which end, and are exported, first) take the outcome, task, agent and customer from it.
import type { MappedSpan, SpanKeys } from "./map-span.js";

/**
 * Each trace's keys from its spans of one request: each key from the root span when it names one, else
 * from the first span that does. Traces whose spans name no outcome are absent.
 */
export function traceKeysOf(spans: readonly MappedSpan[]): Map<string, SpanKeys> {
  const found = new Map<string, SpanKeys>();
  for (const roots of [true, false]) {
    for (const span of spans) {
      if (span.root !== roots) continue;
      const known = found.get(span.traceId);
      if (known === undefined) found.set(span.traceId, span.keys);
      else if (lends(span.keys, known)) found.set(span.traceId, inherit(known, span.keys));
    }
  }
  for (const [traceId, keys] of found) if (keys.outcome === undefined) found.delete(traceId);
  return found;
}

/** True when `from` names a key `keys` lacks. */
function lends(from: SpanKeys, keys: SpanKeys): boolean {
  return (
    (keys.outcome === undefined && from.outcome !== undefined) ||
    (keys.task === undefined && from.task !== undefined) ||
    (keys.agent === undefined && from.agent !== undefined) ||
    (keys.customer === undefined && from.customer !== undefined)
  );
}

/** True when every key `own` names, `trace` names the same. */
function agrees(own: SpanKeys, trace: SpanKeys): boolean {
  return (
    (own.outcome === undefined || own.outcome === trace.outcome) &&
    (own.task === undefined || own.task === trace.task) &&
    (own.agent === undefined || own.agent === trace.agent) &&
    (own.customer === undefined || own.customer === trace.customer)
  );
}

/**
 * A span's keys, its own first, its trace's for the rest (built in one field order, so every such object has
 * one shape). When one side adds nothing to the other, that side's object is the answer, shared and never
 * changed: most spans name no key their trace lacks, and a request's spans of one trace then share one object.
 */
export function inherit(own: SpanKeys, trace: SpanKeys): SpanKeys {
  if (agrees(own, trace)) return trace;
  if (!lends(trace, own)) return own;
  const keys: SpanKeys = {};
  const outcome = own.outcome ?? trace.outcome;
  if (outcome !== undefined) keys.outcome = outcome;
  const task = own.task ?? trace.task;
  if (task !== undefined) keys.task = task;
  const agent = own.agent ?? trace.agent;
  if (agent !== undefined) keys.agent = agent;
  const customer = own.customer ?? trace.customer;
  if (customer !== undefined) keys.customer = customer;
  return keys;
}

/** A trace's keys as the hold records and compares them: a JSON array in one field order, so equal keys are equal text. */
export function packTraceKeys(keys: SpanKeys): string {
  return JSON.stringify([keys.outcome ?? null, keys.task ?? null, keys.agent ?? null, keys.customer ?? null]);
}

/** Keys packed by packTraceKeys, built in the one field order. */
export function unpackTraceKeys(text: string): SpanKeys {
  const [outcome, task, agent, customer] = JSON.parse(text) as (string | null)[];
  const keys: SpanKeys = {};
  if (typeof outcome === "string") keys.outcome = outcome;
  if (typeof task === "string") keys.task = task;
  if (typeof agent === "string") keys.agent = agent;
  if (typeof customer === "string") keys.customer = customer;
  return keys;
}

/**
 * The body of an event (the shape POST /v1/events takes) for one mapped event with its keys: a task or
 * no customer makes a Variant A event (`outcome_key`), a customer without a task a Variant B one.
 */
export function eventInput(
  event: MappedSpan["events"][number],
  keys: SpanKeys & { outcome: string },
): Record<string, unknown> {
  const common = { action: event.action, properties: event.properties, idempotency_key: event.idempotencyKey };
  if (keys.task !== undefined || keys.customer === undefined) return { outcome_key: keys.outcome, ...common };
  return {
    key: keys.outcome,
    customer_key: keys.customer,
    ...(keys.agent !== undefined && { agent_key: keys.agent }),
    ...common,
  };
}
