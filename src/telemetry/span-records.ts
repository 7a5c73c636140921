// Ended spans as plain data, the form in which they cross to the export thread (see off-thread-exporter.ts):
// a structured clone keeps fields, not methods or classes, so the span context's function and any
// TraceState object are written out here and made again on the other side.
import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";
import type { Resource } from "@opentelemetry/resources";

/** A span context without its TraceState object (the W3C tracestate text instead). */
export interface ContextRecord {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: string;
}

export interface LinkRecord {
  context: ContextRecord;
  attributes?: Attributes;
  droppedAttributesCount?: number;
}

export interface SpanRecord {
  name: string;
  kind: SpanKind;
  context: ContextRecord;
  parentContext?: ContextRecord;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: LinkRecord[];
  events: TimedEvent[];
  instrumentationScope: { name: string; version?: string; schemaUrl?: string };
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

/** The resource every span of one batch shares (one per process). */
export interface ResourceRecord {
  attributes: Attributes;
  schemaUrl?: string;
}

export function contextRecord(context: SpanContext): ContextRecord {
  const { traceId, spanId, traceFlags, isRemote, traceState } = context;
  return {
    traceId,
    spanId,
    traceFlags,
    ...(isRemote !== undefined && { isRemote }),
    ...(traceState && { traceState: traceState.serialize() }),
  };
}

export function spanRecord(span: ReadableSpan): SpanRecord {
  const { name, kind, startTime, endTime, duration, status, attributes, events, instrumentationScope } = span;
  return {
    name,
    kind,
    context: contextRecord(span.spanContext()),
    ...(span.parentSpanContext && { parentContext: contextRecord(span.parentSpanContext) }),
    startTime,
    endTime,
    duration,
    status,
    attributes,
    links: span.links.map((link: Link) => ({ ...link, context: contextRecord(link.context) })),
    events,
    instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

export function resourceRecord(resource: Resource): ResourceRecord {
  return {
    attributes: resource.attributes,
    ...(resource.schemaUrl !== undefined && { schemaUrl: resource.schemaUrl }),
  };
}

function spanContextOf(record: ContextRecord): SpanContext {
  const { traceState, ...rest } = record;
  return traceState === undefined ? rest : { ...rest, traceState: new TraceState(traceState) };
}

/** The ReadableSpan an exporter reads, made again from its record; `resource` is shared by the batch. */
export function readableSpan(record: SpanRecord, resource: Resource): ReadableSpan {
  const context = spanContextOf(record.context);
  const { parentContext, links, ...fields } = record;
  return {
    ...fields,
    spanContext: () => context,
    ...(parentContext && { parentSpanContext: spanContextOf(parentContext) }),
    links: links.map((link) => ({ ...link, context: spanContextOf(link.context) })),
    ended: true,
    resource,
  };
}
