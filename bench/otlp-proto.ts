// OTLP's trace messages for protobufjs (a reflection schema, no .proto files): the encoder of test and bench
// requests, and the general-purpose decoder the hand-written one is measured against (bench/otlp-decode.ts).
import protobuf from "protobufjs";

const KEY_VALUE = { fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } } };

export const otlpRoot = protobuf.Root.fromJSON({
  nested: {
    AnyValue: {
      oneofs: {
        value: {
          oneof: ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"],
        },
      },
      fields: {
        stringValue: { type: "string", id: 1 },
        boolValue: { type: "bool", id: 2 },
        intValue: { type: "int64", id: 3 },
        doubleValue: { type: "double", id: 4 },
        arrayValue: { type: "ArrayValue", id: 5 },
        kvlistValue: { type: "KeyValueList", id: 6 },
        bytesValue: { type: "bytes", id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: "repeated", type: "AnyValue", id: 1 } } },
    KeyValueList: { fields: { values: { rule: "repeated", type: "KeyValue", id: 1 } } },
    KeyValue: KEY_VALUE,
    Resource: { fields: { attributes: { rule: "repeated", type: "KeyValue", id: 1 } } },
    Status: { fields: { message: { type: "string", id: 2 }, code: { type: "int32", id: 3 } } },
    Event: {
      fields: {
        timeUnixNano: { type: "fixed64", id: 1 },
        name: { type: "string", id: 2 },
        attributes: { rule: "repeated", type: "KeyValue", id: 3 },
      },
    },
    Span: {
      fields: {
        traceId: { type: "bytes", id: 1 },
        spanId: { type: "bytes", id: 2 },
        parentSpanId: { type: "bytes", id: 4 },
        name: { type: "string", id: 5 },
        kind: { type: "int32", id: 6 },
        startTimeUnixNano: { type: "fixed64", id: 7 },
        endTimeUnixNano: { type: "fixed64", id: 8 },
        attributes: { rule: "repeated", type: "KeyValue", id: 9 },
        events: { rule: "repeated", type: "Event", id: 11 },
        status: { type: "Status", id: 15 },
      },
    },
    ScopeSpans: { fields: { spans: { rule: "repeated", type: "Span", id: 2 } } },
    ResourceSpans: {
      fields: { resource: { type: "Resource", id: 1 }, scopeSpans: { rule: "repeated", type: "ScopeSpans", id: 2 } },
    },
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: "repeated", type: "ResourceSpans", id: 1 } } },
    ExportTracePartialSuccess: {
      fields: { rejectedSpans: { type: "int64", id: 1 }, errorMessage: { type: "string", id: 2 } },
    },
    ExportTraceServiceResponse: { fields: { partialSuccess: { type: "ExportTracePartialSuccess", id: 1 } } },
    RpcStatus: { fields: { code: { type: "int32", id: 1 }, message: { type: "string", id: 2 } } },
  },
});

export const ExportTraceServiceRequest = otlpRoot.lookupType("ExportTraceServiceRequest");
export const ExportTraceServiceResponse = otlpRoot.lookupType("ExportTraceServiceResponse");
export const RpcStatus = otlpRoot.lookupType("RpcStatus");

const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: value } });

/**
 * An export of `conversations` GenAI conversations of four spans each (agent, chat, tool, HTTP), as a
 * framework sends them: the conversation id on the agent span only.
 */
export function genAiExport(conversations: number, seed = 1): Record<string, unknown> {
  const spans: Record<string, unknown>[] = [];
  const base = BigInt(Date.now()) * 1_000_000n;
  for (let c = 0; c < conversations; c++) {
    const traceId = Buffer.alloc(16);
    traceId.writeUInt32BE(seed, 0);
    traceId.writeUInt32BE(c + 1, 12);
    const id = (n: number): Buffer => {
      const b = Buffer.alloc(8);
      b.writeUInt32BE(c + 1, 0);
      b.writeUInt32BE(n, 4);
      return b;
    };
    const common = (n: number, name: string, attributes: unknown[], parent: boolean) => ({
      traceId,
      spanId: id(n),
      ...(parent && { parentSpanId: id(1) }),
      name,
      kind: 1,
      startTimeUnixNano: (base + BigInt(c * 1000 + n)).toString(),
      endTimeUnixNano: (base + BigInt(c * 1000 + 500 - n)).toString(),
      attributes,
    });
    spans.push(
      common(
        2,
        "chat gpt-test",
        [
          text("gen_ai.operation.name", "chat"),
          text("gen_ai.request.model", "gpt-test"),
          int("gen_ai.usage.input_tokens", 12),
          int("gen_ai.usage.output_tokens", 30),
        ],
        true,
      ),
    );
    spans.push(
      common(
        3,
        "execute_tool refund",
        [
          text("gen_ai.operation.name", "execute_tool"),
          text("gen_ai.tool.name", "refund"),
          text("gen_ai.tool.type", "function"),
        ],
        true,
      ),
    );
    spans.push(common(4, "GET", [text("http.request.method", "GET"), text("url.full", "http://example.test/")], true));
    spans.push(
      common(
        1,
        "invoke_agent triage",
        [
          text("gen_ai.operation.name", "invoke_agent"),
          text("gen_ai.agent.name", "triage"),
          text("gen_ai.conversation.id", `conv-${seed}-${c}`),
        ],
        false,
      ),
    );
  }
  return {
    resourceSpans: [{ resource: { attributes: [text("service.name", "bench-bot")] }, scopeSpans: [{ spans }] }],
  };
}

/** The protobuf bytes of an export object. */
export function encodeExport(request: Record<string, unknown>): Buffer {
  return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());
}
