// The event action a span becomes: `tool.<name>`, `agent.<name>`, `chat`..., `.error` when it failed.
import { textOf } from "./attributes.js";
import type { SpanFamily } from "./span-family.js";
import { STATUS_ERROR, type OtlpSpan } from "./spans.js";

/** Longest action an event may carry (decisions.md section 8). */
export const MAX_ACTION_LENGTH = 128;

/** What the span is to the mapping: a model call (its tokens are its value), a tool, an agent turn or other. */
export type SpanRole = "model" | "tool" | "agent" | "other";

export type ActionResult = { action: string; role: SpanRole } | { skip: string } | { invalid: string };

const SAFE = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Characters a condition's action name cannot hold become `_`; the first must be a letter or `_`. */
export function conditionSafe(name: string): string {
  // Most names are safe already: one test, and no new string.
  if (SAFE.test(name)) return name;
  const safe = name.replace(/[^A-Za-z0-9_.-]/g, "_");
  return /^[A-Za-z_]/.test(safe) ? safe : `_${safe}`;
}

function named(prefix: string, name: string | undefined): string {
  return name === undefined ? prefix : `${prefix}.${name}`;
}

const MODEL_OPERATIONS = new Set(["chat", "text_completion", "generate_content", "embeddings"]);
const OPENINFERENCE: Record<string, [string, SpanRole]> = {
  LLM: ["chat", "model"],
  EMBEDDING: ["embeddings", "model"],
};

function genAi(span: OtlpSpan, operation: string): { action: string; role: SpanRole } {
  const a = span.attributes;
  if (operation === "execute_tool") return { action: named("tool", textOf(a.get("gen_ai.tool.name"))), role: "tool" };
  if (operation === "invoke_agent")
    return { action: named("agent", textOf(a.get("gen_ai.agent.name"))), role: "agent" };
  return { action: operation, role: MODEL_OPERATIONS.has(operation) ? "model" : "other" };
}

function vercel(span: OtlpSpan, operation: string): ActionResult {
  const a = span.attributes;
  if (operation === "ai.toolCall") return { action: named("tool", textOf(a.get("ai.toolCall.name"))), role: "tool" };
  if (operation.endsWith(".doGenerate") || operation.endsWith(".doStream")) return { action: "chat", role: "model" };
  if (operation.endsWith(".doEmbed")) return { action: "embeddings", role: "model" };
  if (/^ai\.(generate|stream)(Text|Object)$/.test(operation)) {
    return { action: named("agent", textOf(a.get("ai.telemetry.functionId"))), role: "agent" };
  }
  // The outer ai.embed / ai.embedMany wrap their doEmbed, which is the call: counting both would double it.
  return { skip: "vercel_wrapper" };
}

function base(span: OtlpSpan, family: SpanFamily): ActionResult {
  switch (family.kind) {
    case "gen_ai":
      return genAi(span, family.operation);
    case "vercel":
      return vercel(span, family.operation);
    case "openinference": {
      if (family.spanKind === "TOOL")
        return { action: named("tool", textOf(span.attributes.get("tool.name"))), role: "tool" };
      if (family.spanKind === "AGENT")
        return { action: named("agent", span.name === "" ? undefined : span.name), role: "agent" };
      const known = OPENINFERENCE[family.spanKind];
      return known ? { action: known[0], role: known[1] } : { action: family.spanKind.toLowerCase(), role: "other" };
    }
  }
}

/** True when the span failed: status ERROR, or an `error.type` attribute. */
export function failed(span: OtlpSpan): boolean {
  return span.statusCode === STATUS_ERROR || textOf(span.attributes.get("error.type")) !== undefined;
}

/** The span's action, made condition-safe, or why it has none. */
export function actionOf(span: OtlpSpan, family: SpanFamily): ActionResult {
  const result = base(span, family);
  if (!("action" in result)) return result;
  const action = conditionSafe(failed(span) ? `${result.action}.error` : result.action);
  if (action.length > MAX_ACTION_LENGTH)
    return { invalid: `action ${action.slice(0, 40)}... is longer than ${MAX_ACTION_LENGTH} characters` };
  return { action, role: result.role };
}
