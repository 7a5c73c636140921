// Which instrumentation a span comes from, and so whether the mapping considers it at all.
import { textOf } from "./attributes.js";
import type { OtlpSpan } from "./spans.js";

export type SpanFamily =
  /** OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name`. */
  | { kind: "gen_ai"; operation: string }
  /** OpenInference (Arize Phoenix, OpenAI Agents SDK, LlamaIndex...): `openinference.span.kind`. */
  | { kind: "openinference"; spanKind: string }
  /** Vercel AI SDK: `ai.*` operation names (`ai.operationId`, else the span name). */
  | { kind: "vercel"; operation: string };

/** The span's family, or undefined for spans the mapping drops (HTTP, database, ...). */
export function spanFamily(span: OtlpSpan): SpanFamily | undefined {
  const operation = textOf(span.attributes.get("gen_ai.operation.name"));
  if (operation !== undefined) return { kind: "gen_ai", operation };
  const spanKind = textOf(span.attributes.get("openinference.span.kind"));
  if (spanKind !== undefined) return { kind: "openinference", spanKind: spanKind.toUpperCase() };
  const vercel = textOf(span.attributes.get("ai.operationId")) ?? span.name;
  if (vercel.startsWith("ai.")) return { kind: "vercel", operation: vercel };
  return undefined;
}
