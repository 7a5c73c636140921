// What each instrumentation's spans become: actions, keys, properties, drops and rejections.
import { describe, expect, it } from "vitest";
import { conditionSafe } from "./action-name.js";
import { DEFAULT_OTLP_MAPPING } from "./mapping-config.js";
import { mapSpan, type MappedSpan } from "./map-span.js";
import type { AttributeValue, OtlpSpan } from "./spans.js";
import { eventInput, inherit, traceKeysOf } from "./trace-keys.js";

const TRACE = "0af7651916cd43dd8448eb211c80319c";

function span(name: string, attributes: Record<string, AttributeValue>, extra: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: TRACE,
    spanId: "b7ad6b7169203331",
    parentSpanId: "00f067aa0ba902b7",
    name,
    startNs: 1e18,
    endNs: 1e18 + 2_500_000,
    attributes: new Map(Object.entries(attributes)),
    events: [],
    statusCode: 0,
    ...extra,
  };
}

function mapped(s: OtlpSpan, resource: Record<string, AttributeValue> = {}): MappedSpan {
  const verdict = mapSpan(s, new Map(Object.entries(resource)), { ...DEFAULT_OTLP_MAPPING });
  if (verdict.kind !== "mapped") throw new Error(`not mapped: ${JSON.stringify(verdict)}`);
  return verdict.span;
}

const action = (s: OtlpSpan): string => mapped(s).events[0]!.action;

describe("mapSpan", () => {
  it("names GenAI, OpenInference and Vercel AI SDK spans' actions", () => {
    expect(action(span("x", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund" }))).toBe(
      "tool.refund",
    );
    expect(action(span("x", { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage" }))).toBe(
      "agent.triage",
    );
    expect(action(span("x", { "gen_ai.operation.name": "chat" }))).toBe("chat");
    expect(action(span("x", { "gen_ai.operation.name": "embeddings" }))).toBe("embeddings");
    expect(action(span("x", { "openinference.span.kind": "TOOL", "tool.name": "search" }))).toBe("tool.search");
    expect(action(span("x", { "openinference.span.kind": "LLM" }))).toBe("chat");
    expect(action(span("Planner", { "openinference.span.kind": "AGENT" }))).toBe("agent.Planner");
    expect(action(span("ai.toolCall", { "ai.toolCall.name": "weather" }))).toBe("tool.weather");
    expect(action(span("ai.generateText.doGenerate", {}))).toBe("chat");
    expect(action(span("ai.streamText", { "ai.telemetry.functionId": "support" }))).toBe("agent.support");
  });

  it("appends .error on an ERROR status or error.type, and makes names condition-safe", () => {
    expect(
      action(
        span("x", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get weather" }, { statusCode: 2 }),
      ),
    ).toBe("tool.get_weather.error");
    expect(action(span("x", { "gen_ai.operation.name": "chat", "error.type": "timeout" }))).toBe("chat.error");
    expect(conditionSafe("9lives/x")).toBe("_9lives_x");
  });

  it("drops spans of no agent framework, rejects bad ids and unfixable actions", () => {
    expect(mapSpan(span("GET", { "http.request.method": "GET" }), new Map(), { ...DEFAULT_OTLP_MAPPING })).toEqual({
      kind: "dropped",
      reason: "not_genai",
    });
    expect(mapSpan(span("ai.embed", {}), new Map(), { ...DEFAULT_OTLP_MAPPING })).toEqual({
      kind: "dropped",
      reason: "vercel_wrapper",
    });
    expect(
      mapSpan(span("x", { "gen_ai.operation.name": "chat" }, { spanId: "00000000" }), new Map(), {
        ...DEFAULT_OTLP_MAPPING,
      }).kind,
    ).toBe("rejected");
    const long = mapSpan(
      span("x", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t".repeat(200) }),
      new Map(),
      { ...DEFAULT_OTLP_MAPPING },
    );
    expect(long).toMatchObject({ kind: "rejected", reason: "bad_action" });
  });

  it("keeps what the call was, never what it said, unless the mapping names it", () => {
    const chat = span("x", {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "m",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.input.messages": "secret",
    });
    expect(mapped(chat).events[0]!.properties).toEqual({
      model: "m",
      input_tokens: 10,
      output_tokens: 5,
      duration_ms: 2.5,
      value: 15,
      trace_id: TRACE,
      span_id: "b7ad6b7169203331",
    });
    const included = mapSpan(chat, new Map(), {
      ...DEFAULT_OTLP_MAPPING,
      include_attributes: ["gen_ai.input.messages"],
    });
    expect(included.kind === "mapped" && included.span.events[0]!.properties.gen_ai_input_messages).toBe("secret");
    expect(
      mapped(span("x", { "gen_ai.operation.name": "execute_tool", "verdict.value": 7 })).events[0]!.properties.value,
    ).toBe(7);
    expect(mapped(span("x", { "gen_ai.operation.name": "execute_tool" })).events[0]!.idempotencyKey).toBe(
      `otlp:${TRACE}:b7ad6b7169203331`,
    );
  });

  it("turns evaluation results into eval events with the score as value", () => {
    const s = span(
      "x",
      { "gen_ai.operation.name": "chat" },
      {
        events: [
          {
            name: "gen_ai.evaluation.result",
            attributes: new Map<string, AttributeValue>([
              ["gen_ai.evaluation.name", "relevance"],
              ["gen_ai.evaluation.score.value", 0.8],
            ]),
          },
        ],
      },
    );
    expect(mapped(s).events[1]).toMatchObject({
      action: "eval.relevance",
      properties: { value: 0.8 },
      idempotencyKey: `otlp:${TRACE}:b7ad6b7169203331:eval:0`,
    });
  });

  it("finds keys on the span first, then the resource, verdict.outcome_key before the list", () => {
    const s = span("x", { "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "conv", "enduser.id": "u1" });
    expect(mapped(s, { "verdict.outcome_key": "explicit", "verdict.task_key": "t" }).keys).toEqual({
      outcome: "explicit",
      task: "t",
      customer: "u1",
    });
    expect(mapped(s).keys).toEqual({ outcome: "conv", customer: "u1" });
  });
});

describe("trace keys", () => {
  it("lend the root span's keys to children, which keep their own", () => {
    const child = { ...mapped(span("x", { "gen_ai.operation.name": "chat", "gen_ai.agent.id": "own" })) };
    const root = {
      ...mapped(
        span(
          "x",
          {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": "c",
            "gen_ai.agent.id": "a",
            "user.id": "u",
          },
          { parentSpanId: "" },
        ),
      ),
    };
    const keys = traceKeysOf([child, root]).get(TRACE)!;
    expect(keys).toEqual({ outcome: "c", agent: "a", customer: "u" });
    expect(inherit(child.keys, keys)).toEqual({ outcome: "c", agent: "own", customer: "u" });
    expect(traceKeysOf([child]).size).toBe(0);
  });

  it("make Variant A events with a task or without a customer, Variant B otherwise", () => {
    const event = { action: "chat", properties: {}, idempotencyKey: "k" };
    expect(eventInput(event, { outcome: "o", task: "t", customer: "c" })).toEqual({
      outcome_key: "o",
      action: "chat",
      properties: {},
      idempotency_key: "k",
    });
    expect(eventInput(event, { outcome: "o", customer: "c", agent: "a" })).toEqual({
      key: "o",
      customer_key: "c",
      agent_key: "a",
      action: "chat",
      properties: {},
      idempotency_key: "k",
    });
  });
});
