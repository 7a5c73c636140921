// The real OpenTelemetry JS SDK exports GenAI agent/tool/chat spans of 200 conversations to POST /v1/traces
// (protobuf and JSON, gzip on and off): each conversation becomes an outcome whose event log holds its
// mapped spans exactly once, children sent before their parent included; a condition over the mapped actions
// confirms the right ones; a Variant B agent with a customer key bills one charge per confirmed conversation.
import { randomBytes } from "node:crypto";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import {
  exportSpans,
  idsOf,
  otlpExporter,
  recordConversation,
  recordingTracer,
  type Encoding,
} from "../support/otel-spans.js";
import { DEPLOYMENTS } from "../support/redis.js";

interface LoggedEvent {
  action: string;
  properties: Record<string, unknown>;
  idempotency_key: string;
}

const COMBINATIONS: [Encoding, boolean][] = [
  ["proto", false],
  ["proto", true],
  ["json", false],
  ["json", true],
];

describe.each(DEPLOYMENTS)("OTLP export from the OpenTelemetry SDK (%s)", (deployment) => {
  let t: TestApp;
  const run = randomBytes(3).toString("hex");

  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(async () => {
    await t.stop();
  });

  async function eventsOf(key: string): Promise<LoggedEvent[]> {
    const reply = await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}/events?limit=1000`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return (reply.body as { events: LoggedEvent[] }).events;
  }

  it("turns 200 conversations into outcomes, each span once, and confirms those that refunded (Variant A)", async () => {
    const task = `support-${run}`;
    expect(
      (
        await t.request("PUT", `/v1/tasks/${task}`, {
          name: "Support",
          condition: "COUNT(tool.refund)>=1 AND COUNT(agent.triage)>=1 AND IDLE(2s)",
        })
      ).status,
    ).toBe(201);
    const { tracer, finished } = recordingTracer({ "service.name": "support-bot", "verdict.task_key": task });
    const expected = new Map<string, { spans: ReadableSpan[]; refunded: boolean }>();
    await Promise.all(
      COMBINATIONS.map(async ([encoding, gzip], c) => {
        const exporter = otlpExporter(encoding, gzip, t.base, t.token);
        const early: ReadableSpan[] = [];
        const late: ReadableSpan[] = [];
        for (let i = 0; i < 50; i++) {
          const id = `conv-${run}-${c}-${i}`;
          const refunded = i % 2 === 0;
          const { children, agent } = recordConversation(tracer, finished, {
            id,
            agentName: "triage",
            tool: refunded ? "refund" : "lookup",
          });
          expected.set(id, { spans: [children[0]!, children[1]!, agent], refunded });
          // Every fifth conversation's children go out in an export before their parent's.
          if (i % 5 === 0) early.push(...children);
          else late.push(...children);
          late.push(agent);
        }
        await exportSpans(exporter, early);
        await exportSpans(exporter, late);
        // An exporter's retry of a whole batch applies nothing twice.
        await exportSpans(exporter, late.slice(0, 40));
        await exporter.shutdown();
      }),
    );
    expect(expected.size).toBe(200);

    for (const [id, { spans, refunded }] of expected) {
      const events = await eventually(
        async () => {
          const got = await eventsOf(id).catch(() => []);
          return got.length >= 3 ? got : undefined;
        },
        20_000,
        `the events of ${id}`,
      );
      const keys = events.map((e) => e.idempotency_key).sort();
      const want = spans.map((s) => `otlp:${idsOf(s).traceId}:${idsOf(s).spanId}`).sort();
      expect(keys).toEqual(want);
      expect(events.map((e) => e.action).sort()).toEqual(
        ["agent.triage", "chat", refunded ? "tool.refund" : "tool.lookup"].sort(),
      );
      for (const event of events) {
        expect(event.properties.trace_id).toBe(idsOf(spans[0]!).traceId);
        // Message contents and tool arguments are never stored by default.
        expect(JSON.stringify(event.properties)).not.toMatch(/secret customer message|card/);
      }
      const chat = events.find((e) => e.action === "chat")!;
      expect(chat.properties).toMatchObject({
        model: "gpt-test",
        input_tokens: 12,
        output_tokens: 30,
        value: 42,
        finish_reasons: ["tool_calls"],
      });
    }
    for (const [id, { refunded }] of expected) {
      const status = await eventually(
        async () => {
          const outcome = (await t.request("GET", `/v1/outcomes/${encodeURIComponent(id)}`)).body as { status: string };
          return !refunded || outcome.status === "CONFIRMED" ? outcome.status : undefined;
        },
        20_000,
        `the verdict of ${id}`,
      );
      expect(status).toBe(refunded ? "CONFIRMED" : "OPEN");
    }
  }, 55_000);

  it("bills one charge per confirmed conversation of a Variant B agent with a customer key", async () => {
    const agentKey = `agent-${run}`;
    const customer = `cust-${run}`;
    expect(
      (
        await t.request("PUT", `/v1/agents/${agentKey}`, {
          name: "Triage",
          condition: "COUNT(tool.refund)>=1 AND COUNT(agent.triage)>=1",
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await t.request("PUT", `/v1/rate-cards/card-${run}`, {
          currency: "EUR",
          entries: [{ agent_key: agentKey, unit_amount: 250 }],
        })
      ).status,
    ).toBe(201);
    expect(
      (await t.request("PUT", `/v1/customers/${customer}`, { name: "Acme", rate_card_key: `card-${run}` })).status,
    ).toBe(201);
    const { tracer, finished } = recordingTracer({ "service.name": "billing-bot" });
    const exporter = otlpExporter("proto", true, t.base, t.token);
    const spans: ReadableSpan[] = [];
    for (let i = 0; i < 20; i++) {
      const { children, agent } = recordConversation(tracer, finished, {
        id: `b-${run}-${i}`,
        agentName: "triage",
        tool: i < 12 ? "refund" : "lookup",
        agentAttributes: { "gen_ai.agent.id": agentKey, "enduser.id": customer },
      });
      spans.push(...children, agent);
    }
    await exportSpans(exporter, spans);
    await exporter.shutdown();
    const charges = await eventually(
      async () => {
        const reply = (await t.request("GET", `/v1/charges?customer_key=${customer}`)).body as {
          charges: { outcome_key: string; amount: number }[];
        };
        return reply.charges.length >= 12 ? reply.charges : undefined;
      },
      20_000,
      "12 charges",
    );
    expect(charges.map((c) => c.outcome_key).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `b-${run}-${i}`).sort(),
    );
    expect(charges.every((c) => c.amount === 250)).toBe(true);
  }, 30_000);
});
