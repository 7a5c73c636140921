// What became of the spans of OTLP trace exports, by reason (/metrics).
import { Counter, type Registry } from "prom-client";

export const SPAN_RESULTS = [
  "mapped",
  "held",
  "dropped_not_genai",
  "dropped_vercel_wrapper",
  "rejected_bad_ids",
  "rejected_bad_action",
  "rejected_hold_full",
  "rejected_invalid_event",
  "rejected_not_opened",
  "expired_no_outcome_key",
] as const;

export type SpanResult = (typeof SPAN_RESULTS)[number];

export interface OtlpMetrics {
  count(result: SpanResult, n?: number): void;
}

export function createOtlpMetrics(registry: Registry): OtlpMetrics {
  const spans = new Counter({
    name: "verdict_otlp_spans_total",
    help: "Spans received on POST /v1/traces, by what became of them",
    labelNames: ["result"],
    registers: [registry],
  });
  const children = Object.fromEntries(SPAN_RESULTS.map((r) => [r, spans.labels(r)])) as Record<
    SpanResult,
    { inc(n?: number): void }
  >;
  return {
    count(result, n = 1) {
      if (n > 0) children[result].inc(n);
    },
  };
}
