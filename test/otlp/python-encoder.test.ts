// Another language's encoder: Python's official opentelemetry-proto bindings (with Google's protobuf runtime),
// installed into a fresh virtualenv with pip, post the same GenAI conversations the OpenTelemetry JS SDK
// exports, as protobuf, some gzip-compressed, children in an earlier request than their agent span; every
// outcome and event log is the JS one's, ids aside, and the bindings read Verdict's partial_success answer.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createVenv, step, type Venv } from "../support/python-venv.js";
import {
  emitWithTracer,
  planConversations,
  type PlannedConversation,
  type PlannedSpan,
} from "./genai-conversations.js";
import { eventLog, eventLogs, sdkPipeline, settle, type LoggedEvent } from "./harness.js";

const SCRIPT = fileURLToPath(new URL("python/post_traces.py", import.meta.url));
const CONVERSATIONS = 20;

interface PythonAnswer {
  status: number;
  content_type?: string;
  rejected_spans?: number;
  error_message?: string;
  body?: string;
}

/** What an event says about its span, ids aside: the two encoders' spans differ only in their random ids. */
function comparable(event: LoggedEvent): { action: string; properties: Record<string, unknown> } {
  const properties = Object.fromEntries(
    Object.entries(event.properties).filter(([name]) => !/trace_?id|span_?id/i.test(name)),
  );
  return { action: event.action, properties };
}

/** What an outcome's events decided: its status and per action the count and last value (`last_at` is when
 * the worker applied the event, which differs between the two runs). */
interface Verdict {
  status: string;
  observations: Record<string, { count: number; last_value: unknown }>;
}

describe("OTLP from Python's official opentelemetry-proto bindings", () => {
  let t: TestApp;
  let venv: Venv | undefined;
  const task = "python-support";
  const resource = { "service.name": "support-bot", "verdict.task_key": task };

  beforeAll(async () => {
    [t, venv] = await Promise.all([startTestApp("standalone"), createVenv("otlp-python")]);
    await venv.install(["opentelemetry-proto==1.45.0", "protobuf"]);
    // Confirmed once refunded and quiet: without the IDLE the agent span's own event would confirm the outcome
    // and its evaluation event, a moment later, would find it closed.
    const condition = "COUNT(tool.refund)>=1 AND COUNT(agent.triage)>=1 AND IDLE(5s)";
    expect((await t.request("PUT", `/v1/tasks/${task}`, { name: "Support conversations", condition })).status).toBe(
      201,
    );
  }, 240_000);
  afterAll(async () => {
    venv?.remove();
    await t?.stop();
  });

  async function verdictOf(key: string): Promise<Verdict> {
    const outcome = (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as Verdict & {
      observations: Record<string, { last_at: string }>;
    };
    const observations = Object.fromEntries(
      Object.entries(outcome.observations).map(([action, { count, last_value }]) => [action, { count, last_value }]),
    );
    return { status: outcome.status, observations };
  }

  it("maps the traces Python builds exactly as the JS SDK's: the same outcomes, the same event logs", async () => {
    const baseMs = Date.now() - 60_000;
    const js = planConversations("js", CONVERSATIONS, baseMs);
    const py = planConversations("py", CONVERSATIONS, baseMs);

    const sdk = sdkPipeline({ base: t.base, token: t.token, encoding: "protobuf", gzip: false, resource });
    js.forEach((conversation) => emitWithTracer(sdk.tracer, conversation));
    await sdk.shutdown();

    // Children of the first half, then (gzip) the second half's children with the first half's agent spans,
    // then (gzip) the remaining agent spans: a child's key is only known from a later request.
    const half = CONVERSATIONS / 2;
    const children = (list: PlannedConversation[]): PlannedSpan[] =>
      list.flatMap((c) => c.spans.filter((s) => s.parentSpanId !== ""));
    const roots = (list: PlannedConversation[]): PlannedSpan[] =>
      list.flatMap((c) => c.spans.filter((s) => s.parentSpanId === ""));
    // A span whose id is not 8 bytes is rejected alone, named in partial_success.
    const badId = {
      ...py[0]!.spans[0]!,
      spanId: "abcd",
      attributes: { ...py[0]!.spans[0]!.attributes, "gen_ai.conversation.id": "py-bad" },
    };
    const requests = [
      { gzip: false, resource, spans: children(py.slice(0, half)) },
      { gzip: true, resource, spans: [...children(py.slice(half)), ...roots(py.slice(0, half))] },
      { gzip: true, resource, spans: roots(py.slice(half)) },
      { gzip: false, resource, spans: [badId] },
    ];
    const planFile = join(venv!.dir, "plan.json");
    writeFileSync(planFile, JSON.stringify({ requests }));
    const answers = JSON.parse(
      await step(venv!.python, [SCRIPT, planFile, `${t.base}/v1/traces`, t.token]),
    ) as PythonAnswer[];

    expect(answers.slice(0, 3)).toEqual(
      Array.from({ length: 3 }, () => ({
        status: 200,
        content_type: "application/x-protobuf",
        rejected_spans: 0,
        error_message: "",
      })),
    );
    expect(answers[3]).toMatchObject({ status: 200, rejected_spans: 1 });
    expect(answers[3]!.error_message).not.toBe("");

    const expected = (key: string): number => [...js, ...py].find((c) => c.key === key)!.actions.length;
    const keys = [...js, ...py].map((c) => c.key);
    await eventLogs(t, keys, expected);
    await settle();
    for (let i = 0; i < CONVERSATIONS; i++) {
      const [jsLog, pyLog] = await Promise.all([eventLog(t, js[i]!.key), eventLog(t, py[i]!.key)]);
      expect([...jsLog!.map((e) => e.action)].sort()).toEqual([...js[i]!.actions].sort());
      expect(pyLog!.map(comparable)).toEqual(jsLog!.map(comparable));
      for (const event of pyLog!) expect(event.idempotency_key).toMatch(/^otlp:[0-9a-f]{32}:[0-9a-f]{16}(:eval:\d+)?$/);
    }
    // The refunds confirm once quiet (the failed ones and the lookups do not), whichever language sent them.
    const refunded = (i: number): boolean => i % 3 !== 0 && i % 5 !== 4;
    const confirming = [...js, ...py].filter((_, n) => refunded(n % CONVERSATIONS)).map((c) => c.key);
    await eventually(
      async () =>
        (await Promise.all(confirming.map(verdictOf))).every((v) => v.status === "CONFIRMED") ? true : undefined,
      30_000,
      "the refunds' verdicts",
    );
    for (let i = 0; i < CONVERSATIONS; i++) {
      const [jsVerdict, pyVerdict] = await Promise.all([verdictOf(js[i]!.key), verdictOf(py[i]!.key)]);
      expect(pyVerdict).toEqual(jsVerdict);
      expect(pyVerdict.status).toBe(refunded(i) ? "CONFIRMED" : "OPEN");
    }
    expect((await t.request("GET", "/v1/outcomes/py-bad")).status).toBe(404);
  }, 90_000);
});
