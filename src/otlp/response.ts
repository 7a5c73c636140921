// The answers of POST /v1/traces in the request's encoding: ExportTraceServiceResponse (with partial_success)
// and google.rpc.Status for refusals.

export type OtlpEncoding = "protobuf" | "json";

export const CONTENT_TYPE: Record<OtlpEncoding, string> = {
  protobuf: "application/x-protobuf",
  json: "application/json",
};

function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function lengthDelimited(field: number, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...varint(bytes.length)]), bytes]);
}

/** The 200 answer; `rejected` 0 leaves partial_success out, as the specification asks for full success. */
export function exportResponse(encoding: OtlpEncoding, rejected: number, message: string): Buffer {
  if (encoding === "json") {
    return Buffer.from(
      JSON.stringify(
        rejected === 0 && message === ""
          ? {}
          : { partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } },
      ),
    );
  }
  if (rejected === 0 && message === "") return Buffer.alloc(0);
  const parts: Buffer[] = [];
  if (rejected > 0) parts.push(Buffer.from([(1 << 3) | 0, ...varint(rejected)]));
  if (message !== "") parts.push(lengthDelimited(2, Buffer.from(message, "utf8")));
  return lengthDelimited(1, Buffer.concat(parts));
}

/** gRPC status codes for the google.rpc.Status of each refusal's HTTP status. */
const GRPC_CODE: Record<number, number> = { 400: 3, 401: 16, 403: 7, 413: 3, 415: 3, 429: 8, 500: 13, 503: 14 };

/** A google.rpc.Status body for a refusal with HTTP `status`. */
export function statusBody(encoding: OtlpEncoding, status: number, message: string): Buffer {
  const code = GRPC_CODE[status] ?? 2;
  if (encoding === "json") return Buffer.from(JSON.stringify({ code, message }));
  return Buffer.concat([
    Buffer.from([(1 << 3) | 0, ...varint(code)]),
    lengthDelimited(2, Buffer.from(message, "utf8")),
  ]);
}

/** The OTLP/JSON answers, as the OpenAPI document shows them. */
export interface ExportTraceServiceResponseJson {
  /** Present when some spans were rejected: how many, and why. */
  partialSuccess?: { rejectedSpans: string; errorMessage: string };
}

/** google.rpc.Status in OTLP/JSON: a refusal of POST /v1/traces (gRPC code and message). */
export interface RpcStatusJson {
  code: number;
  message: string;
}

/** An OTLP/JSON ExportTraceServiceRequest; docs/otlp.md describes the spans it carries. */
export interface ExportTraceServiceRequestJson {
  resourceSpans?: Record<string, unknown>[];
}
