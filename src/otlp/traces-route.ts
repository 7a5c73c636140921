// POST /v1/traces: the OTLP/HTTP trace endpoint. Exporters get OTLP's answers in their request's encoding:
// ExportTraceServiceResponse (partial_success naming rejected spans) or a google.rpc.Status refusal.
import type { ApiError } from "../errors/api-error.js";
import { MAX_TRACES_BODY_BYTES, encodingOf, readTraceBody } from "./decode-request.js";
import { CONTENT_TYPE, exportResponse, statusBody } from "./response.js";
import type { TraceIngest } from "./trace-ingest.js";
import type { ApiResponse, Route } from "../ingress/router.js";

/** A refusal as google.rpc.Status, protobuf for protobuf requests and JSON otherwise. */
function refusal(error: ApiError, contentType: string): ApiResponse {
  const encoding = encodingOf(contentType) ?? "json";
  return {
    status: error.status,
    bytes: statusBody(encoding, error.status, error.message),
    headers: { "Content-Type": CONTENT_TYPE[encoding] },
  };
}

export function traceRoutes(ingest: TraceIngest): Route[] {
  return [
    {
      method: "POST",
      path: "/v1/traces",
      maxBodyBytes: MAX_TRACES_BODY_BYTES,
      rawBody: true,
      refusal,
      async handler(req) {
        const body = await readTraceBody(req.raw!);
        const answer = await ingest.ingest(req.accountId, body, req.receivedAt, req.traceparent);
        return {
          status: 200,
          bytes: exportResponse(body.encoding, answer.rejected, answer.message),
          headers: { "Content-Type": CONTENT_TYPE[body.encoding] },
        };
      },
    },
  ];
}
