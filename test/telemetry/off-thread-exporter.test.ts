// The export thread sends what the OTLP/HTTP exporter sends from the main thread, byte for byte once
// parsed (parents, links with tracestate, events, status, every attribute type), reports a refused batch
// as FAILED, fails a batch it cannot copy at once, starts a new thread after one died, and flushes on
// shutdown, after which it refuses batches.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, SpanStatusCode, trace, TraceFlags, type Tracer } from "@opentelemetry/api";
import { ExportResultCode, TraceState, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OffThreadExporter } from "../../src/telemetry/off-thread-exporter.js";

interface Receiver {
  server: Server;
  url: string;
  /** Bodies received, by path. */
  bodies: Map<string, unknown[]>;
}

/** Answers 200 to /ok/v1/traces and 400 (a batch the collector will not take) to /refuse/v1/traces. */
function startReceiver(): Promise<Receiver> {
  const bodies = new Map<string, unknown[]>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const path = req.url ?? "";
      bodies.set(path, [...(bodies.get(path) ?? []), JSON.parse(body) as unknown]);
      res.writeHead(path.startsWith("/refuse") ? 400 : 200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies }),
    ),
  );
}

/** Real ended spans from the SDK: a root with every attribute type, and a child with a link and an event. */
function endedSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "verdict-under-test", "verdict.role": "ingress" }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer: Tracer = provider.getTracer("verdict", "1.2.3");
  const root = tracer.startSpan("POST /v1/events", {
    attributes: {
      "http.route": "/v1/events",
      "http.response.status_code": 202,
      ok: true,
      ratio: 0.5,
      tags: ["a", "b"],
    },
  });
  const linked = {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState("vendor=value,other=1"),
  };
  const child = tracer.startSpan(
    "enqueue",
    { links: [{ context: linked, attributes: { "link.kind": "caller" } }] },
    trace.setSpan(context.active(), root),
  );
  child.addEvent("retry", { attempt: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: "unconfirmed" });
  child.end();
  root.end();
  return memory.getFinishedSpans();
}

const exported = (
  exporter: { export(spans: ReadableSpan[], done: (r: ExportResult) => void): void },
  spans: ReadableSpan[],
): Promise<ExportResult> => new Promise((resolve) => exporter.export(spans, resolve));

describe("OffThreadExporter", () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => {
    receiver.server.close();
  });

  it("sends what the OTLP exporter sends from the main thread", async () => {
    const spans = endedSpans();
    expect(spans).toHaveLength(2);
    const inline = new OTLPTraceExporter({ url: `${receiver.url}/inline/v1/traces` });
    expect((await exported(inline, spans)).code).toBe(ExportResultCode.SUCCESS);
    await inline.shutdown();

    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${receiver.url}/ok`;
    const offThread = new OffThreadExporter();
    expect((await exported(offThread, spans)).code).toBe(ExportResultCode.SUCCESS);
    await offThread.shutdown();

    const [sentInline] = receiver.bodies.get("/inline/v1/traces")!;
    const [sentOffThread] = receiver.bodies.get("/ok/v1/traces")!;
    expect(JSON.stringify(sentInline)).toContain('"traceState":"vendor=value,other=1"');
    expect(sentOffThread).toEqual(sentInline);
  });

  it("reports a batch the collector refuses as FAILED", async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${receiver.url}/refuse`;
    const exporter = new OffThreadExporter();
    const result = await exported(exporter, endedSpans());
    await exporter.shutdown();
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error?.message).toBe("Bad Request");
  });

  /**
   * Exports a batch of one span changed by `spoil` (to `path`), then a sound batch, which must succeed;
   * returns the first batch's result and how many batches reached the collector.
   */
  const spoiledThenSound = async (
    path: string,
    spoil: (span: ReadableSpan) => ReadableSpan,
  ): Promise<{ spoiled: ExportResult; received: number }> => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${receiver.url}${path}`;
    const exporter = new OffThreadExporter();
    const spoiled = await exported(exporter, [spoil(endedSpans()[0]!)]);
    expect((await exported(exporter, endedSpans())).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();
    return { spoiled, received: receiver.bodies.get(`${path}/v1/traces`)?.length ?? 0 };
  };

  it("fails a batch it cannot copy to the thread at once, and exports the next one", async () => {
    // The SDK sanitises attributes, so only a span from elsewhere could carry a function.
    const { spoiled, received } = await spoiledThenSound("/uncopyable", (span) => ({
      ...span,
      spanContext: span.spanContext,
      attributes: { callback: (() => {}) as unknown as string },
    }));
    expect(spoiled.code).toBe(ExportResultCode.FAILED);
    expect(spoiled.error?.name).toBe("DataCloneError");
    expect(received).toBe(1);
  });

  it("fails the batches of a thread that died and starts a new one for the next", async () => {
    // A resource without attributes makes the thread's handler throw: the thread exits.
    const { spoiled, received } = await spoiledThenSound("/restart", (span) => ({
      ...span,
      spanContext: span.spanContext,
      resource: { ...span.resource, attributes: null as unknown as ReadableSpan["resource"]["attributes"] },
    }));
    expect(spoiled.code).toBe(ExportResultCode.FAILED);
    expect(spoiled.error?.message).toBe("span export thread exited with 1");
    expect(received).toBe(1);
  });

  it("flushes on shutdown and refuses batches after it", async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${receiver.url}/flush`;
    const exporter = new OffThreadExporter();
    const first = exported(exporter, endedSpans());
    await exporter.shutdown();
    expect((await first).code).toBe(ExportResultCode.SUCCESS);
    expect(receiver.bodies.get("/flush/v1/traces")).toHaveLength(1);
    const late = await exported(exporter, endedSpans());
    expect(late.code).toBe(ExportResultCode.FAILED);
    expect(receiver.bodies.get("/flush/v1/traces")).toHaveLength(1);
  });
});
