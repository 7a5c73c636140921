// The properties an event from a span carries: what the call was (model, tokens, tool type, duration,
// error), never what it said; message contents only through the mapping's include_attributes.
import { firstNumber, firstText, numberOf, textOf } from "./attributes.js";
import type { SpanRole } from "./action-name.js";
import type { AttributeValue, OtlpSpan } from "./spans.js";

const MODEL = ["gen_ai.response.model", "gen_ai.request.model", "ai.response.model", "ai.model.id", "llm.model_name"];
const INPUT_TOKENS = [
  "gen_ai.usage.input_tokens",
  "ai.usage.inputTokens",
  "ai.usage.promptTokens",
  "llm.token_count.prompt",
];
const OUTPUT_TOKENS = [
  "gen_ai.usage.output_tokens",
  "ai.usage.outputTokens",
  "ai.usage.completionTokens",
  "llm.token_count.completion",
];
const PROVIDER = ["gen_ai.provider.name", "gen_ai.system", "ai.model.provider", "llm.provider"];

/** The property name an attribute is copied under: a condition property path segment. */
export function propertyName(attribute: string): string {
  const name = attribute.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
}

function finishReasons(span: OtlpSpan): AttributeValue | undefined {
  const reasons = span.attributes.get("gen_ai.response.finish_reasons");
  if (Array.isArray(reasons)) return reasons;
  const vercel = textOf(span.attributes.get("ai.response.finishReason"));
  return vercel === undefined ? undefined : [vercel];
}

/** Properties of the event a span becomes; `include` names extra attributes to copy. */
export function spanProperties(span: OtlpSpan, role: SpanRole, include: readonly string[]): Record<string, unknown> {
  const a = span.attributes;
  const properties: Record<string, unknown> = {};
  const model = firstText(a, MODEL);
  if (model !== undefined) properties.model = model;
  const provider = firstText(a, PROVIDER);
  if (provider !== undefined) properties.provider = provider;
  const input = firstNumber(a, INPUT_TOKENS);
  const output = firstNumber(a, OUTPUT_TOKENS);
  if (input !== undefined) properties.input_tokens = input;
  if (output !== undefined) properties.output_tokens = output;
  const reasons = finishReasons(span);
  if (reasons !== undefined) properties.finish_reasons = reasons;
  const toolType = textOf(a.get("gen_ai.tool.type"));
  if (toolType !== undefined) properties.tool_type = toolType;
  const errorType = textOf(a.get("error.type"));
  if (errorType !== undefined) properties.error_type = errorType;
  if (span.endNs >= span.startNs && span.startNs > 0)
    properties.duration_ms = Math.round((span.endNs - span.startNs) / 1e3) / 1e3;
  const tokens = input === undefined && output === undefined ? undefined : (input ?? 0) + (output ?? 0);
  properties.value = numberOf(a.get("verdict.value")) ?? (role === "model" && tokens !== undefined ? tokens : 1);
  for (const name of include) {
    const value = a.get(name);
    if (value !== undefined) properties[propertyName(name)] = value;
  }
  properties.trace_id = span.traceId;
  properties.span_id = span.spanId;
  return properties;
}
