// The shard actor's spans: one per unit of work (a batch, a settle, a commit), and for each sampled event a
// span in its own request's trace, so "HTTP 202 -> enqueue -> applied" reads as one trace.
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { linksTo, spanContextOf, tracer, tracingEnabled } from "../telemetry/tracing.js";
import type { CommitResult } from "./batch-commit.js";
import type { DecodedEntry } from "./shard-entries.js";

/** Runs one unit of the actor's work in a span, so a trace shows where a batch's time went. */
export function traced(
  shard: number,
  name: string,
  attributes: Record<string, number>,
  work: () => Promise<void>,
): Promise<void> {
  return tracer().startActiveSpan(name, { attributes: { "verdict.shard": shard, ...attributes } }, async (span) => {
    try {
      await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs a commit in a "shard.commit" span carrying its result; without tracing, just runs it. */
export function tracedCommit(shard: number, commit: () => Promise<CommitResult>): Promise<CommitResult> {
  if (!tracingEnabled()) return commit();
  return tracer().startActiveSpan("shard.commit", { attributes: { "verdict.shard": shard } }, async (span) => {
    try {
      const result = await commit();
      span.setAttribute("verdict.commit.result", result.ok ? "ok" : result.reason);
      return result;
    } finally {
      span.end();
    }
  });
}

/** Links the batch's span to the request of every event that carried a trace context. */
export function linkBatchToRequests(entries: readonly DecodedEntry[]): void {
  const traceparents: string[] = [];
  for (const entry of entries)
    for (const { event } of entry.events) if (event.traceparent !== undefined) traceparents.push(event.traceparent);
  trace.getActiveSpan()?.addLinks(linksTo(traceparents));
}

/**
 * For each sampled event, a span in the event's own trace (child of its request) from the batch's start
 * to its commit, linked to the batch span. An event that led to a verdict carries it.
 */
export function traceAppliedEvents(
  shard: number,
  entries: readonly DecodedEntry[],
  records: ReadonlyMap<string, OutcomeRecord>,
  startedMs: number,
): void {
  const batch = trace.getActiveSpan()?.spanContext();
  const startTime = performance.timeOrigin + startedMs;
  for (const entry of entries) {
    for (const { event, ref } of entry.events) {
      const parent = event.traceparent === undefined ? undefined : spanContextOf(event.traceparent);
      // Bit 0 of the trace flags: the request was sampled, so its trace is being recorded.
      if (!parent || (parent.traceFlags & 1) === 0) continue;
      const status = records.get(ref)?.status;
      const span = tracer().startSpan(
        "apply event",
        {
          startTime,
          links: batch ? [{ context: batch }] : [],
          attributes: {
            "verdict.shard": shard,
            "verdict.entry_id": entry.id,
            "verdict.outcome.status": status ?? "unknown",
          },
        },
        trace.setSpanContext(context.active(), parent),
      );
      span.end();
    }
  }
}
