// A real framework's own instrumentation, offline: the Vercel AI SDK (`ai` 6) runs conversations with tools
// against its mock language model, its `experimental_telemetry` spans go through the OpenTelemetry JS SDK's
// OTLP exporter to Verdict, and each conversation (`metadata.sessionId`) becomes an outcome whose event log
// holds its spans as docs/otlp.md maps them: ai.toolCall -> tool.<name>, doGenerate / doStream -> chat with
// the tokens of ai.usage.*, the outer generateText / streamText -> agent.<functionId>.
import { context, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { eventLog, eventLogs, sdkPipeline, settle, type SdkPipeline } from "./harness.js";

const CONVERSATIONS = 12;

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** A mock model that calls `toolName` on its first step and answers on its second. */
function toolCallingModel(i: number, toolName: string): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    provider: "mock-provider",
    modelId: "mock-model",
    doGenerate: () => {
      step++;
      if (step === 1) {
        const input = JSON.stringify({ orderId: `order-${i}` });
        return Promise.resolve({
          content: [{ type: "tool-call", toolCallId: `call-${i}`, toolName, input }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage: usage(100 + i, 10),
          warnings: [],
        });
      }
      return Promise.resolve({
        content: [{ type: "text", text: `done for customer ${i}` }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: usage(200 + i, 20 + i),
        warnings: [],
      });
    },
  });
}

/** A mock model that streams a short answer. */
function streamingModel(i: number): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: "mock-provider",
    modelId: "mock-model",
    doStream: () =>
      Promise.resolve({
        stream: convertArrayToReadableStream([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: `anything else, customer ${i}?` },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(30 + i, 5) },
        ]),
      }),
  });
}

/** The mapping docs/otlp.md documents for the AI SDK's spans, applied to what the SDK really emitted. */
function documentedAction(span: ReadableSpan): string {
  const a = span.attributes;
  const error = span.status.code === SpanStatusCode.ERROR ? ".error" : "";
  const operation = String(a["ai.operationId"]);
  if (operation === "ai.toolCall") return `tool.${String(a["ai.toolCall.name"])}${error}`;
  if (/^ai\.\w+\.do(Generate|Stream)$/.test(operation)) return `chat${error}`;
  return `agent.${String(a["ai.telemetry.functionId"])}${error}`;
}

const endNs = (span: ReadableSpan): number => span.endTime[0] * 1e9 + span.endTime[1];

/** Conversation `vercel-<i>` called the refund tool and it worked. */
function refunded(key: string): boolean {
  const i = Number(key.split("-")[1]);
  return i % 3 !== 0 && i % 4 !== 3;
}

describe("the Vercel AI SDK's own telemetry, exported to POST /v1/traces", () => {
  let t: TestApp;
  let sdk: SdkPipeline;
  const recorded = new InMemorySpanExporter();
  const task = "vercel-support";

  beforeAll(async () => {
    // What NodeSDK registers in an application: without a context manager each AI SDK span is its own trace.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    t = await startTestApp("standalone");
    // What the SDK emitted is recorded beside the export: the expectation is the documented mapping of these
    // very spans, not a copy of the mapping's code.
    const also = [new SimpleSpanProcessor(recorded)];
    sdk = sdkPipeline({
      base: t.base,
      token: t.token,
      encoding: "protobuf",
      gzip: true,
      resource: { "service.name": "vercel-bot", "verdict.task_key": task },
      also,
    });
    // docs/otlp.md's example: confirmed once the conversation has refunded and gone quiet. Without the
    // IDLE a refund would confirm at once and the session's second turn would find its outcome closed.
    const condition = "COUNT(tool.refund)>=1 AND COUNT(agent.triage)>=1 AND IDLE(5s)";
    expect((await t.request("PUT", `/v1/tasks/${task}`, { name: "AI SDK conversations", condition })).status).toBe(201);
  });
  afterAll(async () => {
    await sdk?.shutdown();
    await t?.stop();
    context.disable();
  });

  it("turns each session's generateText and streamText spans, tools included, into its outcome's events", async () => {
    const { tracer } = sdk;
    const tools = (i: number) => ({
      refund: tool({
        description: "Refunds an order",
        inputSchema: z.object({ orderId: z.string() }),
        execute: ({ orderId }) => {
          if (i % 4 === 3) throw new Error("the payments API timed out");
          return Promise.resolve({ refunded: orderId });
        },
      }),
      lookup_order: tool({
        description: "Finds an order",
        inputSchema: z.object({ orderId: z.string() }),
        execute: ({ orderId }) => Promise.resolve({ orderId, state: "shipped" }),
      }),
    });
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, i) => {
        const sessionId = `vercel-${i}`;
        await generateText({
          model: toolCallingModel(i, i % 3 === 0 ? "lookup_order" : "refund"),
          prompt: `customer ${i}: refund my order`,
          tools: tools(i),
          stopWhen: stepCountIs(3),
          experimental_telemetry: { isEnabled: true, tracer, functionId: "triage", metadata: { sessionId } },
        });
        // Every other conversation has a second turn: another trace of the same session.
        if (i % 2 === 1) {
          const turn = streamText({
            model: streamingModel(i),
            prompt: "thanks",
            experimental_telemetry: { isEnabled: true, tracer, functionId: "followup", metadata: { sessionId } },
          });
          await turn.consumeStream();
        }
      }),
    );
    await sdk.flush();

    const spans = recorded.getFinishedSpans();
    const bySession = new Map<string, ReadableSpan[]>();
    for (const span of spans) {
      const session = String(span.attributes["ai.telemetry.metadata.sessionId"]);
      bySession.set(session, [...(bySession.get(session) ?? []), span]);
    }
    expect(bySession.size).toBe(CONVERSATIONS);
    const keys = [...bySession.keys()];
    await eventLogs(t, keys, (key) => bySession.get(key)!.length);
    await settle();

    for (const [key, sessionSpans] of bySession) {
      const i = Number(key.split("-")[1]);
      const log = (await eventLog(t, key))!;
      const ordered = [...sessionSpans].sort((a, b) => endNs(a) - endNs(b));
      expect(log.map((e) => e.action)).toEqual(ordered.map(documentedAction));
      expect(log.map((e) => e.idempotency_key)).toEqual(
        ordered.map((s) => `otlp:${s.spanContext().traceId}:${s.spanContext().spanId}`),
      );
      const toolAction = i % 3 === 0 ? "tool.lookup_order" : i % 4 === 3 ? "tool.refund.error" : "tool.refund";
      expect(log.map((e) => e.action)).toEqual([
        "chat",
        toolAction,
        "chat",
        "agent.triage",
        ...(i % 2 === 1 ? ["chat", "agent.followup"] : []),
      ]);
      // Model calls carry their tokens from ai.usage.* (their value is the sum); the rest count 1.
      const chats = log.filter((e) => e.action === "chat");
      const chatSpans = ordered.filter((s) => documentedAction(s) === "chat");
      chats.forEach((event, n) => {
        const a = chatSpans[n]!.attributes;
        const [input, output] = [Number(a["ai.usage.inputTokens"]), Number(a["ai.usage.outputTokens"])];
        expect(event.properties).toMatchObject({
          model: "mock-model",
          input_tokens: input,
          output_tokens: output,
          value: input + output,
        });
      });
      for (const event of log.filter((e) => e.action !== "chat")) expect(event.properties.value).toBe(1);
      // Prompts, answers, tool arguments and results are personal data: none is stored.
      const stored = JSON.stringify(log);
      for (const secret of [`customer ${i}`, `order-${i}`, "refund my order"]) expect(stored).not.toContain(secret);
    }
    // The refunded conversations confirm once quiet; the lookups and the failed refunds stay open.
    const statuses = await eventually(
      async () => {
        const all = await Promise.all(
          keys.map(
            async (key) =>
              [key, ((await t.request("GET", `/v1/outcomes/${key}`)).body as { status: string }).status] as const,
          ),
        );
        return all.filter(([, status]) => status === "CONFIRMED").length >= keys.filter((key) => refunded(key)).length
          ? new Map(all)
          : undefined;
      },
      30_000,
      "the refunded conversations' verdicts",
    );
    for (const key of keys) expect(statuses.get(key)).toBe(refunded(key) ? "CONFIRMED" : "OPEN");
  }, 90_000);
});
