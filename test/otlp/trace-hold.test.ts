// The trace hold: children exported before their parent wait in Redis, so the parent may reach another
// ingress (or the same one after a restart) and still bring them in; a trace that never names its outcome
// is rejected once the hold ends, counted and with nothing stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";
import { exportSpans, idsOf, otlpExporter, recordConversation, recordingTracer } from "../support/otel-spans.js";

describe("OTLP trace hold", () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await startTestApp("standalone", { otlpHoldMs: 1500 });
    // Another ingress of the same deployment: same key prefix and token secret, so the same account.
    second = await startTestApp("standalone", {
      otlpHoldMs: 1500,
      keyPrefix: first.options.keyPrefix,
      tokenSecret: first.options.tokenSecret,
    });
    // The conversations open their outcomes from this task (verdict.task_key on the resource).
    expect(
      (await first.request("PUT", "/v1/tasks/hold", { name: "Hold", condition: "COUNT(agent.triage)>=2" })).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await second.stop();
  });

  it("releases children held by one ingress when the parent reaches another after the first stopped", async () => {
    const { tracer, finished } = recordingTracer({ "service.name": "bot", "verdict.task_key": "hold" });
    const { children, agent } = recordConversation(tracer, finished, {
      id: "held-conv",
      agentName: "triage",
      tool: "refund",
    });
    const toFirst = otlpExporter("json", false, first.base, first.token);
    await exportSpans(toFirst, children);
    await toFirst.shutdown();
    expect(await metricValue(first.app.metricsPort, 'verdict_otlp_spans_total{result="held"}')).toBe(2);
    expect((await first.request("GET", "/v1/outcomes/held-conv")).status).toBe(404);
    await first.stop();

    const toSecond = otlpExporter("proto", true, second.base, first.token);
    await exportSpans(toSecond, [agent]);
    await toSecond.shutdown();
    const events = await eventually(
      async () => {
        const reply = await second.request("GET", "/v1/outcomes/held-conv/events", undefined, first.token);
        const list = (reply.body as { events?: { idempotency_key: string }[] }).events ?? [];
        return list.length >= 3 ? list : undefined;
      },
      15_000,
      "the three events",
    );
    const keys = [children[0]!, children[1]!, agent].map((s) => `otlp:${idsOf(s).traceId}:${idsOf(s).spanId}`);
    // Applied in end-time order: the children (which may end within the clock's resolution) before their parent.
    expect(
      events
        .map((e) => e.idempotency_key)
        .slice(0, 2)
        .sort(),
    ).toEqual(keys.slice(0, 2).sort());
    expect(events[2]!.idempotency_key).toBe(keys[2]);
  });

  it("rejects a trace that never names its outcome once the hold ends", async () => {
    const { tracer, finished } = recordingTracer({ "service.name": "bot", "verdict.task_key": "hold" });
    const { children, agent } = recordConversation(tracer, finished, {
      id: "late-conv",
      agentName: "triage",
      tool: "refund",
    });
    const exporter = otlpExporter("proto", false, second.base, first.token);
    await exportSpans(exporter, children);
    await eventually(
      async () =>
        ((await metricValue(second.app.metricsPort, "verdict_otlp_spans_total")) > 0 &&
          (await metricValue(second.app.metricsPort, 'verdict_otlp_spans_total{result="expired_no_outcome_key"}')) ===
            2) ||
        undefined,
      10_000,
      "the expired hold",
    );
    // The parent after the hold: only its own event; the children were given up on.
    await exportSpans(exporter, [agent]);
    await exporter.shutdown();
    const events = await eventually(
      async () => {
        const list = (
          (await second.request("GET", "/v1/outcomes/late-conv/events", undefined, first.token)).body as {
            events?: unknown[];
          }
        ).events;
        return list && list.length > 0 ? list : undefined;
      },
      10_000,
      "the parent's event",
    );
    expect(events).toHaveLength(1);
  });
});
