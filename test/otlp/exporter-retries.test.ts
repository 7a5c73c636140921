// The OpenTelemetry JS SDK's OTLP exporters (protobuf with gzip, and JSON) through a proxy that forwards each
// export and then, one time in ten, cuts the connection instead of answering: the exporter retries a batch
// the service already took, and every span still becomes its events exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { seeded, startFaultProxy, type Fault, type FaultProxy } from "../client/fault-proxy.js";
import { emitWithTracer, planConversations } from "./genai-conversations.js";
import { eventLog, eventLogs, sdkPipeline, settle } from "./harness.js";

const PER_ENCODING = 100;

describe("OTLP exports retried through lost answers", () => {
  let t: TestApp;
  let proxy: FaultProxy;
  const task = "retried-support";

  beforeAll(async () => {
    t = await startTestApp("standalone");
    proxy = await startFaultProxy(t.base, 11);
    // A condition these conversations never meet: the outcomes stay open and every event lands in their logs.
    expect(
      (await t.request("PUT", `/v1/tasks/${task}`, { name: "Retried exports", condition: "never_sent" })).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.stop();
  });

  it("applies every span once though 10% of the answers are lost after the service took the export", async () => {
    const random = seeded(39);
    let requests = 0;
    // The first and third answers are lost for sure, then one in ten at random.
    proxy.setPolicy((request): Fault => {
      if (request.path !== "/v1/traces") return { kind: "forward" };
      requests++;
      return requests <= 4 && requests % 2 === 1
        ? { kind: "reset-after-forward" }
        : random() < 0.1
          ? { kind: "reset-after-forward" }
          : { kind: "forward" };
    });
    const resource = { "service.name": "retried-bot", "verdict.task_key": task };
    const plans = {
      protobuf: planConversations("retry-pb", PER_ENCODING),
      json: planConversations("retry-json", PER_ENCODING),
    };
    const pipelines = (["protobuf", "json"] as const).map((encoding) => {
      // Small batches: many exports, so the lost answers fall on children, parents and mixed requests alike.
      // A minute for each batch and its retries (OTEL_EXPORTER_OTLP_TIMEOUT): the default 10 s runs out on this
      // loaded machine when one batch loses two answers in a row, and the budget is the SDK's, not Verdict's.
      const sdk = sdkPipeline({
        base: proxy.base,
        token: t.token,
        encoding,
        gzip: encoding === "protobuf",
        resource,
        batchSize: 40,
        timeoutMillis: 60_000,
      });
      plans[encoding].forEach((conversation) => emitWithTracer(sdk.tracer, conversation));
      return sdk;
    });
    await Promise.all(pipelines.map((sdk) => sdk.shutdown()));

    const lost = proxy.counts["reset-after-forward"];
    expect(lost).toBeGreaterThanOrEqual(2);
    const all = [...plans.protobuf, ...plans.json];
    const expected = new Map(all.map((c) => [c.key, c.actions.length]));
    await eventLogs(t, [...expected.keys()], (key) => expected.get(key)!);
    // Long enough for a second copy of any of them to have been applied, had one been enqueued.
    await settle(1000);
    for (const conversation of all) {
      const log = (await eventLog(t, conversation.key))!;
      expect(log.map((e) => e.action).sort()).toEqual([...conversation.actions].sort());
      expect(new Set(log.map((e) => e.idempotency_key)).size).toBe(log.length);
    }
    // The retries were real: the service saw more export requests than the exporters made batches.
    const batches = Math.ceil((all.length * 4) / 40);
    expect(requests).toBeGreaterThanOrEqual(batches + lost);
    console.log(
      `OTLP retries: ${requests} export requests for about ${batches} batches, ${lost} answers lost after forwarding`,
    );
  }, 90_000);
});
