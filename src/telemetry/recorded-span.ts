// A span the ingress records itself, instead of the SDK's span: the API's Span while it runs, the SDK's
// ReadableSpan once it has ended, as the SDK's own span class is.
//
// Why: at 1% sampling a sampled request is rare enough that the SDK's span path never stays in the CPU's
// caches. Timed in a loaded ingress (2026-11-27), starting a request span through the SDK took 34-46 µs
// and an enqueue span 42-59 µs, where the same calls in a tight loop take 1-2 µs: with their ends, about a
// hundred unsampled requests' worth of tracing per sampled one. This class keeps what it is given in a few
// fields and, when it ends, notes the time and hands itself to the SDK's batch processor (so batching, the
// OTEL_BSP_* settings and the export thread are the SDK spans' own); times are converted, once per batch,
// when the exporter reads them. The SDK still decides requests that carry a caller's trace, and makes
// the worker's spans.
import {
  diag,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type Exception,
  type HrTime,
  type Link,
  type SpanAttributeValue,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
  type Span,
} from "@opentelemetry/api";
import {
  hrTime,
  hrTimeDuration,
  isAttributeValue,
  isTimeInput,
  sanitizeAttributes,
  timeInputToHrTime,
} from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanProcessor, TimedEvent } from "@opentelemetry/sdk-trace-base";

/** Where recorded spans go when they end, and the resource they share with the SDK's spans. */
export interface SpanSink {
  processor: Pick<SpanProcessor, "onEnd">;
  resource: Resource;
}

/** The SDK's default span limits (OTEL_SPAN_*_COUNT_LIMIT unset), applied to links and events alike. */
const COUNT_LIMIT = 128;

/** The instrumentation scope of every span this process makes (the tracer is `trace.getTracer("verdict")`). */
const SCOPE = { name: "verdict" };

export class RecordedSpan implements Span, ReadableSpan {
  readonly attributes: Attributes = {};
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  ended = false;
  readonly resource: Resource;
  readonly instrumentationScope = SCOPE;
  readonly droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  readonly parentSpanContext?: SpanContext;
  /** performance.now() at the start; at the end, or the end time given, in HrTime. */
  private readonly startedAt = performance.now();
  private endedAt: number | HrTime = 0;

  constructor(
    private readonly sink: SpanSink,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    parent: SpanContext | undefined,
    attributes: Attributes = {},
    links: readonly Link[] = [],
  ) {
    if (parent !== undefined) this.parentSpanContext = parent;
    this.resource = sink.resource;
    this.setAttributes(attributes);
    this.addLinks(links);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  get startTime(): HrTime {
    return hrTime(this.startedAt);
  }

  /** Never before the start (as the SDK's span, which warns and takes the start). */
  get endTime(): HrTime {
    const start = this.startTime;
    const end = typeof this.endedAt === "number" ? hrTime(this.endedAt) : this.endedAt;
    return hrTimeDuration(start, end)[0] < 0 ? start : end;
  }

  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  setAttribute(key: string, value: SpanAttributeValue): this {
    // As the SDK's span: null and undefined ignored, invalid values dropped.
    if (this.ended || value == null || key.length === 0) return this;
    if (!isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      return this;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key of Object.keys(attributes)) {
      const value = attributes[key];
      if (value !== undefined) this.setAttribute(key, value);
    }
    return this;
  }

  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, startTime?: TimeInput): this {
    if (this.ended) return this;
    // As the SDK's span: a time in the second place is the event's time unless a third is given.
    const [attributes, time] = isTimeInput(attributesOrStartTime)
      ? [{}, startTime ?? attributesOrStartTime]
      : [attributesOrStartTime, startTime];
    if (this.events.length >= COUNT_LIMIT) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    this.events.push({
      name,
      attributes: sanitizeAttributes(attributes),
      time: time === undefined ? hrTime() : timeInputToHrTime(time),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links.length >= COUNT_LIMIT) {
      this.links.shift();
      this.droppedLinksCount++;
    }
    const attributes = sanitizeAttributes(link.attributes);
    this.links.push({ context: link.context, ...(Object.keys(attributes).length > 0 && { attributes }) });
    return this;
  }

  addLinks(links: readonly Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** As the specification asks: UNSET is no change, OK is final, only ERROR carries a message. */
  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === "string"
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.endedAt = endTime === undefined ? performance.now() : timeInputToHrTime(endTime);
    this.ended = true;
    this.sink.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** As the SDK's span: an "exception" event with the type (its code or name), message and stack. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === "string") attributes["exception.message"] = exception;
    else {
      const type = exception.code ?? exception.name;
      if (type !== undefined) attributes["exception.type"] = String(type);
      if (exception.message) attributes["exception.message"] = exception.message;
      if (exception.stack) attributes["exception.stacktrace"] = exception.stack;
    }
    if (attributes["exception.type"] !== undefined || attributes["exception.message"] !== undefined)
      this.addEvent("exception", attributes, time);
  }
}

/** A sampled span's context: its own ids in `traceId`'s trace, carrying the parent's tracestate on. */
export function sampledContext(traceId: string, spanId: string, parent?: SpanContext): SpanContext {
  return {
    traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    ...(parent?.traceState && { traceState: parent.traceState }),
  };
}
