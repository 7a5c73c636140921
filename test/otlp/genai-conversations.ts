// Agent conversations as OpenTelemetry GenAI spans, planned once and emitted by any encoder: the real
// OpenTelemetry JS SDK here, Python's official OTLP bindings (python/post_traces.py) from the same plan.
import { randomBytes } from "node:crypto";
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";

export type PlannedValue = string | number | boolean | string[];

export interface PlannedEvent {
  name: string;
  atMs: number;
  attributes: Record<string, PlannedValue>;
}

export interface PlannedSpan {
  /** Hex ids for encoders that take them (the JS SDK makes its own). */
  traceId: string;
  spanId: string;
  /** "" for the conversation's root. */
  parentSpanId: string;
  name: string;
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  attributes: Record<string, PlannedValue>;
  /** Status ERROR with this message. */
  error?: string;
  events: PlannedEvent[];
}

export interface PlannedConversation {
  key: string;
  /** Children first, in end order; the agent span (the root, the only one carrying the key) last. */
  spans: PlannedSpan[];
  /** The actions the mapping documents for these spans, in end-time order. */
  actions: string[];
}

const hex = (bytes: number): string => randomBytes(bytes).toString("hex");

/**
 * Conversation i of a run: an `invoke_agent triage` span holding `gen_ai.conversation.id`, and under it a
 * chat, a tool call (a refund, or an order lookup every third conversation; every fifth call fails), a
 * second chat, and on every other conversation an evaluation event on the agent span.
 */
export function planConversation(key: string, i: number, baseMs: number): PlannedConversation {
  const traceId = hex(16);
  const rootId = hex(8);
  const at = baseMs + i * 10;
  const tool = i % 3 === 0 ? "lookup_order" : "refund";
  const toolFails = i % 5 === 4;
  const child = (
    name: string,
    kind: PlannedSpan["kind"],
    start: number,
    end: number,
    attributes: Record<string, PlannedValue>,
  ): PlannedSpan => ({
    traceId,
    spanId: hex(8),
    parentSpanId: rootId,
    name,
    kind,
    startMs: at + start,
    endMs: at + end,
    attributes,
    events: [],
  });
  const chat = (start: number, end: number, input: number, output: number, finish: string): PlannedSpan =>
    child("chat gpt-4o", "client", start, end, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.response.model": "gpt-4o-2024-08-06",
      "gen_ai.usage.input_tokens": input,
      "gen_ai.usage.output_tokens": output,
      "gen_ai.response.finish_reasons": [finish],
      // Message contents carry personal data: the mapping must not store them.
      "gen_ai.input.messages": JSON.stringify([
        { role: "user", parts: [{ type: "text", content: `customer ${i} asks` }] },
      ]),
    });
  const toolSpan = child(`execute_tool ${tool}`, "internal", 3, 5 + (i % 4), {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": tool,
    "gen_ai.tool.type": "function",
    "gen_ai.tool.call.id": `call-${i}`,
    "gen_ai.tool.call.arguments": JSON.stringify({ order: `order-${i}` }),
    ...(toolFails ? { "error.type": "TimeoutError" } : {}),
  });
  if (toolFails) toolSpan.error = "the payments API timed out";
  const root: PlannedSpan = {
    traceId,
    spanId: rootId,
    parentSpanId: "",
    name: "invoke_agent triage",
    kind: "internal",
    startMs: at,
    endMs: at + 12,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "triage",
      "gen_ai.conversation.id": key,
    },
    events:
      i % 2 === 0
        ? [
            {
              name: "gen_ai.evaluation.result",
              atMs: at + 11,
              attributes: {
                "gen_ai.evaluation.name": "helpfulness",
                "gen_ai.evaluation.score.value": 0.5 + (i % 5) / 10,
              },
            },
          ]
        : [],
  };
  const spans = [chat(1, 2, 100 + i, 20, "tool_calls"), toolSpan, chat(9, 10, 150 + i, 30 + (i % 7), "stop"), root];
  const toolAction = `tool.${tool}${toolFails ? ".error" : ""}`;
  return {
    key,
    spans,
    actions: ["chat", toolAction, "chat", ...(i % 2 === 0 ? ["eval.helpfulness"] : []), "agent.triage"],
  };
}

export function planConversations(prefix: string, count: number, baseMs = Date.now() - 60_000): PlannedConversation[] {
  return Array.from({ length: count }, (_, i) => planConversation(`${prefix}-${i}`, i, baseMs));
}

/**
 * Emits the planned spans through an OpenTelemetry JS tracer, with their times, statuses and events; the
 * children end (and so reach the exporter) before their parent, as in a real agent.
 */
export function emitWithTracer(tracer: Tracer, conversation: PlannedConversation): void {
  const root = conversation.spans.find((span) => span.parentSpanId === "")!;
  const rootSpan = tracer.startSpan(root.name, {
    kind: SpanKind.INTERNAL,
    startTime: new Date(root.startMs),
    attributes: root.attributes,
  });
  const parent = trace.setSpan(context.active(), rootSpan);
  for (const planned of conversation.spans) {
    const span =
      planned === root
        ? rootSpan
        : tracer.startSpan(
            planned.name,
            {
              kind: planned.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
              startTime: new Date(planned.startMs),
              attributes: planned.attributes,
            },
            parent,
          );
    for (const event of planned.events) span.addEvent(event.name, event.attributes, new Date(event.atMs));
    if (planned.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: planned.error });
    span.end(new Date(planned.endMs));
  }
}
