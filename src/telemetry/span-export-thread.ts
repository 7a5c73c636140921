// The export thread: turns the batches OffThreadExporter posts back into spans and sends them with the
// OTLP/HTTP exporter, which reads the standard OTEL_EXPORTER_OTLP_* variables (a worker thread starts
// with a copy of the process's environment).
import { parentPort } from "node:worker_threads";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ExportReply, ExportRequest } from "./off-thread-exporter.js";
import { readableSpan } from "./span-records.js";

const port = parentPort;
if (port === null) throw new Error("span-export-thread runs as a worker thread (see OffThreadExporter)");
const exporter = new OTLPTraceExporter();

port.on("message", (request: ExportRequest) => {
  const reply = (message: ExportReply): void => port.postMessage(message);
  if (request.kind === "shutdown") {
    exporter.shutdown().then(
      () => reply({ kind: "shutdown" }),
      () => reply({ kind: "shutdown" }),
    );
    return;
  }
  const resource = resourceFromAttributes(
    request.resource.attributes,
    request.resource.schemaUrl === undefined ? {} : { schemaUrl: request.resource.schemaUrl },
  );
  const spans = request.spans.map((record) => readableSpan(record, resource));
  exporter.export(spans, (result) =>
    reply({
      kind: "exported",
      id: request.id,
      code: result.code,
      ...(result.error && { error: result.error.message }),
    }),
  );
});
