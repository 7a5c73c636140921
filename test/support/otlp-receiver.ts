// A receiver of OTLP/HTTP JSON trace exports (a node:http server), for the tracing tests.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
}
export interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

export interface OtlpReceiver {
  server: Server;
  url: string;
  /** Every trace export received, parsed. */
  exports: OtlpExport[];
  /** Every body received, as sent. */
  raw: string[];
  /** Every span of every export so far. */
  spans(): OtlpSpan[];
}

export function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const raw: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      raw.push(body);
      if (req.url === "/v1/traces") exports.push(JSON.parse(body) as OtlpExport);
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  const spans = (): OtlpSpan[] =>
    exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, raw, spans }),
    ),
  );
}

export const attribute = (span: OtlpSpan, key: string): string | number | boolean | undefined => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? value?.boolValue : Number(value.intValue));
};
