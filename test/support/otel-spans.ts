// GenAI spans made by the real OpenTelemetry JS SDK, and sent to Verdict by its real OTLP exporters
// (protobuf or JSON, gzip or not): the traffic of a framework instrumented with the GenAI conventions.
import { ROOT_CONTEXT, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";

export type Encoding = "proto" | "json";

type ExporterConfig = NonNullable<ConstructorParameters<typeof ProtoExporter>[0]>;

/** A real SDK exporter to `base`/v1/traces with the bearer token; gzip through its compression option. */
export function otlpExporter(
  encoding: Encoding,
  gzip: boolean,
  base: string,
  token: string,
): ProtoExporter | JsonExporter {
  const config: ExporterConfig = {
    url: `${base}/v1/traces`,
    headers: { Authorization: `Bearer ${token}` },
    compression: (gzip ? "gzip" : "none") as unknown as NonNullable<ExporterConfig["compression"]>,
    timeoutMillis: 10_000,
  };
  return encoding === "proto" ? new ProtoExporter(config) : new JsonExporter(config);
}

/** Sends `spans` as one export; resolves with the exporter's verdict (rejects on failure). */
export function exportSpans(exporter: ProtoExporter | JsonExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(spans, (result) =>
      result.code === ExportResultCode.SUCCESS ? resolve() : reject(result.error ?? new Error("export failed")),
    );
  });
}

/** A tracer whose ended spans collect in memory, to be exported in the batches a test chooses. */
export function recordingTracer(resource: Attributes): { tracer: Tracer; finished: InMemorySpanExporter } {
  const finished = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(finished)],
  });
  return { tracer: provider.getTracer("otel-spans-test"), finished };
}

export interface Conversation {
  /** gen_ai.conversation.id, set on the agent span only (as frameworks do). */
  id: string;
  agentName: string;
  /** gen_ai.tool.name of the one tool call. */
  tool: string;
  /** Extra attributes of the agent span (customer, agent id...). */
  agentAttributes?: Attributes;
}

export interface RecordedConversation {
  /** The children (chat, tool, an HTTP call the mapping drops), ended before the agent span. */
  children: ReadableSpan[];
  agent: ReadableSpan;
}

function child(tracer: Tracer, parent: Span, name: string, attributes: Attributes): void {
  const span = tracer.startSpan(name, { attributes }, trace.setSpan(ROOT_CONTEXT, parent));
  span.end();
}

/** One conversation's trace: invoke_agent over a chat call, a tool call and an HTTP request. */
export function recordConversation(
  tracer: Tracer,
  finished: InMemorySpanExporter,
  c: Conversation,
): RecordedConversation {
  finished.reset();
  const agent = tracer.startSpan(`invoke_agent ${c.agentName}`, {
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": c.agentName,
      "gen_ai.conversation.id": c.id,
      ...c.agentAttributes,
    },
  });
  child(tracer, agent, "chat gpt-test", {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-test",
    "gen_ai.usage.input_tokens": 12,
    "gen_ai.usage.output_tokens": 30,
    "gen_ai.response.finish_reasons": ["tool_calls"],
    "gen_ai.input.messages": "secret customer message",
  });
  child(tracer, agent, `execute_tool ${c.tool}`, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": c.tool,
    "gen_ai.tool.type": "function",
    "gen_ai.tool.call.arguments": '{"card":"4111"}',
  });
  child(tracer, agent, "GET", { "http.request.method": "GET", "url.full": "http://example.test/" });
  const children = [...finished.getFinishedSpans()];
  agent.end();
  const all = finished.getFinishedSpans();
  return { children, agent: all[all.length - 1]! };
}

/** The lowercase hex ids of a recorded span, as Verdict's idempotency keys carry them. */
export function idsOf(span: ReadableSpan): { traceId: string; spanId: string } {
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
