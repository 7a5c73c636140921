// OTLP spans to outcome events: map each span, resolve its trace's keys (holding spans whose trace has not
// named its outcome yet), open Variant A outcomes, then validate and submit the events through the same
// pipeline as POST /v1/events/batch, each trace's in end-time order.
import { ApiError, type ErrorDetail } from "../errors/api-error.js";
import { enqueueFailure } from "../errors/enqueue-failure.js";
import { rateExceeded } from "../errors/quota-exceeded.js";
import type { EventPipeline } from "../ingress/event-pipeline.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { filterFor } from "./attribute-filter.js";
import { decodeTraceBody, type TraceBody } from "./decode-request.js";
import { mapSpan, type MappedSpan, type SpanKeys } from "./map-span.js";
import { mappedEnvelope } from "./mapped-envelope.js";
import type { OtlpMapping } from "./mapping-config.js";
import type { MappingStore } from "./mapping-store.js";
import type { OtlpMetrics, SpanResult } from "./otlp-metrics.js";
import type { OutcomeOpener } from "./outcome-opener.js";
import type { ResourceSpans } from "./spans.js";
import type { TraceAsk, TraceHold } from "./trace-hold.js";
import { inherit, traceKeysOf } from "./trace-keys.js";

export interface TraceIngestDeps {
  pipeline: EventPipeline;
  hold: TraceHold;
  mappings: MappingStore;
  opener: OutcomeOpener;
  metrics: OtlpMetrics;
  /** Named in the 429 that refuses spans beyond the account's event rate. */
  eventsPerSecond: number;
}

/** A Redis step of the ingest that failed (down, timed out): the exporter retries after a second. */
async function storeStep<T>(step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError("SERVICE_UNAVAILABLE", "the data store did not answer; retry shortly", undefined, {
      cause: error,
      retryAfterSeconds: 1,
    });
  }
}

/** What the 200 answer's partial_success says. */
export interface IngestAnswer {
  rejected: number;
  message: string;
}

/** Rejections of one request, by reason, for the answer's message and the metrics. */
class Rejections {
  readonly counts = new Map<SpanResult, { n: number; why: string }>();
  total = 0;

  add(result: SpanResult, why: string, n = 1): void {
    const entry = this.counts.get(result);
    if (entry) entry.n += n;
    else this.counts.set(result, { n, why });
    this.total += n;
  }

  message(): string {
    return [...this.counts.values()].map(({ n, why }) => `${n} span(s) rejected: ${why}`).join("; ");
  }
}

/** Why a span's event is refused, for the answer's message. */
function invalidEvent(problems: readonly ErrorDetail[]): string {
  return `the event is invalid (${problems.map((d) => `${d.path} ${d.message}`).join(", ")})`;
}

/** A resolved span, its keys complete, ready to become events. */
interface Ready {
  span: MappedSpan;
  keys: SpanKeys & { outcome: string };
}

function namesOutcome(keys: SpanKeys): keys is SpanKeys & { outcome: string } {
  return keys.outcome !== undefined;
}

/**
 * A trace's events apply in end-time order, children held earlier included, and a parent after its
 * children: SDKs time a child on a clock of its own, which can read a millisecond off its parent's.
 */
function applyOrder(a: Ready, b: Ready): number {
  return (
    (a.span.spanId === b.span.parentSpanId ? 1 : b.span.spanId === a.span.parentSpanId ? -1 : 0) ||
    a.span.endNs - b.span.endNs ||
    b.span.startNs - a.span.startNs
  );
}

/**
 * The spans grouped by outcome, each group in applyOrder: only an outcome's own events have an order to
 * keep, and sorting a request's many small groups costs a fraction of sorting the whole request.
 */
function inOutcomeOrder(ready: readonly Ready[]): Ready[] {
  const byOutcome = new Map<string, Ready[]>();
  for (const one of ready) {
    const group = byOutcome.get(one.keys.outcome);
    if (group) group.push(one);
    else byOutcome.set(one.keys.outcome, [one]);
  }
  const ordered: Ready[] = [];
  for (const group of byOutcome.values()) ordered.push(...group.sort(applyOrder));
  return ordered;
}

export class TraceIngest {
  constructor(private readonly deps: TraceIngestDeps) {}

  async ingest(
    accountId: string,
    body: TraceBody,
    receivedAt: number,
    traceparent: string | undefined,
  ): Promise<IngestAnswer> {
    const { metrics } = this.deps;
    const mapping = await storeStep(this.deps.mappings.get(accountId));
    const rejections = new Rejections();
    const { envelopes, traces, unheld, mapped } = await this.prepare(accountId, body, mapping, receivedAt, rejections);
    const results = await this.deps.pipeline.submit(accountId, envelopes, traceparent);
    // Holds end only for traces whose every event is in: the others stay held, and an exporter's retry of
    // this request releases them again (their idempotency keys keep that to once).
    results.forEach((result, i) => {
      if (result !== "appended" && result !== "duplicate") unheld.delete(traces[i]!);
    });
    await storeStep(this.deps.hold.release(accountId, [...unheld]));
    const failure = results.find((r) => r !== "appended" && r !== "duplicate");
    if (failure === "rate_limited") throw rateExceeded(this.deps.eventsPerSecond, 1);
    if (failure === "rejected" || failure === "unconfirmed") throw enqueueFailure(failure, "event");
    for (const [result, { n }] of rejections.counts) metrics.count(result, n);
    metrics.count("mapped", mapped - (rejections.counts.get("rejected_invalid_event")?.n ?? 0));
    return { rejected: rejections.total, message: rejections.message() };
  }

  /**
   * The request's envelopes, with each one's trace, the holds it may end and how many spans were mapped. Apart
   * from ingest so that nothing references the mapped spans during the enqueue's round trip: they are garbage
   * once their envelopes are built, and die young.
   */
  private async prepare(
    accountId: string,
    body: TraceBody,
    mapping: OtlpMapping,
    receivedAt: number,
    rejections: Rejections,
  ): Promise<{ envelopes: EventEnvelope[]; traces: string[]; unheld: Set<string>; mapped: number }> {
    // Decoded only now, with the mapping's attributes, and mapped at once: the decoded spans never live
    // across a wait, so they die young.
    const mapped = this.map(decodeTraceBody(body, filterFor(mapping)), mapping, rejections);
    const { ready, unheld } = await this.resolve(accountId, mapped, receivedAt, rejections);
    await this.openOutcomes(accountId, ready, receivedAt, rejections);
    return { ...this.envelopes(accountId, ready, receivedAt, rejections), unheld, mapped: ready.length };
  }

  /** The spans the mapping makes events of; the others counted (dropped) or rejected. */
  private map(request: readonly ResourceSpans[], mapping: OtlpMapping, rejections: Rejections): MappedSpan[] {
    const mapped: MappedSpan[] = [];
    for (const { resource, spans } of request) {
      for (const span of spans) {
        const verdict = mapSpan(span, resource, mapping);
        if (verdict.kind === "mapped") mapped.push(verdict.span);
        else if (verdict.kind === "dropped") this.deps.metrics.count(`dropped_${verdict.reason}`);
        else rejections.add(`rejected_${verdict.reason}`, verdict.message);
      }
    }
    return mapped;
  }

  /**
   * Each span with its trace's keys; spans of traces with no outcome key yet are held (or rejected when the
   * hold is full). `unheld`: the traces whose held spans came back, the only holds this request may end (a
   * trace whose keys are recorded gets no new held spans, so the others have none).
   */
  private async resolve(
    accountId: string,
    mapped: MappedSpan[],
    now: number,
    rejections: Rejections,
  ): Promise<{ ready: Ready[]; unheld: Set<string> }> {
    const named = traceKeysOf(mapped);
    const byTrace = new Map<string, MappedSpan[]>();
    for (const span of mapped) {
      const list = byTrace.get(span.traceId);
      if (list) list.push(span);
      else byTrace.set(span.traceId, [span]);
    }
    const asks: TraceAsk[] = [...byTrace].map(([traceId, spans]) => ({
      traceId,
      keys: named.get(traceId),
      unkeyed: spans,
    }));
    const answers = await storeStep(this.deps.hold.resolve(accountId, asks, now));
    const ready: Ready[] = [];
    const unheld = new Set<string>();
    answers.forEach((answer, i) => {
      const { traceId } = asks[i]!;
      const spans = byTrace.get(traceId)!;
      if (answer.status === "held") this.deps.metrics.count("held", spans.length);
      else if (answer.status === "full")
        rejections.add(
          "rejected_hold_full",
          "no outcome key, and the account holds as many spans as it may",
          spans.length,
        );
      else {
        if (answer.released.length > 0) unheld.add(traceId);
        for (const list of [answer.released, spans]) {
          for (const span of list) {
            const keys = inherit(span.keys, answer.keys);
            if (namesOutcome(keys)) ready.push({ span, keys });
          }
        }
      }
    });
    return { ready: inOutcomeOrder(ready), unheld };
  }

  /** Opens each Variant A outcome a trace names a task for; a span whose outcome cannot be opened is rejected. */
  private async openOutcomes(accountId: string, ready: Ready[], now: number, rejections: Rejections): Promise<void> {
    const opens = new Map<string, string>();
    for (const { keys } of ready)
      if (keys.task !== undefined && !opens.has(keys.outcome)) opens.set(keys.outcome, keys.task);
    const refused = new Map<string, string>();
    await Promise.all(
      [...opens].map(async ([outcome, task]) => {
        const why = await storeStep(this.deps.opener.open(accountId, outcome, task, now));
        if (why !== undefined) refused.set(outcome, why);
      }),
    );
    if (refused.size === 0) return;
    for (let i = ready.length - 1; i >= 0; i--) {
      const why = refused.get(ready[i]!.keys.outcome);
      if (why === undefined) continue;
      rejections.add("rejected_not_opened", `the outcome could not be opened: ${why}`);
      ready.splice(i, 1);
    }
  }

  /** The envelopes of the ready spans (valid as the event routes would find them: mappedEnvelope), with each one's trace. */
  private envelopes(
    accountId: string,
    ready: Ready[],
    receivedAt: number,
    rejections: Rejections,
  ): { envelopes: EventEnvelope[]; traces: string[] } {
    const envelopes: EventEnvelope[] = [];
    const traces: string[] = [];
    for (const { span, keys } of ready) {
      // The span's end, never later than its arrival: a sender's clock ahead of ours must not move outcomes' time forward.
      const at = Math.min(receivedAt, Math.floor(span.endNs / 1e6));
      const stamp = { accountId, receivedAt: at > 0 ? at : receivedAt };
      if (span.events.length === 1) {
        // Most spans make one event: no list to gather them in.
        const checked = mappedEnvelope(span.events[0]!, keys, stamp);
        if (Array.isArray(checked)) rejections.add("rejected_invalid_event", invalidEvent(checked));
        else {
          envelopes.push(checked);
          traces.push(span.traceId);
        }
        continue;
      }
      const stamped: EventEnvelope[] = [];
      let problem: string | undefined;
      for (const event of span.events) {
        const checked = mappedEnvelope(event, keys, stamp);
        if (Array.isArray(checked)) problem ??= invalidEvent(checked);
        else stamped.push(checked);
      }
      if (problem !== undefined) {
        rejections.add("rejected_invalid_event", problem);
        continue;
      }
      for (const envelope of stamped) {
        envelopes.push(envelope);
        traces.push(span.traceId);
      }
    }
    return { envelopes, traces };
  }
}
