// A POST /v1/traces body to its spans: content type, gzip (bounded while inflating), then protobuf or JSON.
import { ApiError } from "../errors/api-error.js";
import type { RawBody } from "../ingress/router.js";
import type { AttributeFilter } from "./attribute-filter.js";
import { decodeJsonRequest } from "./decode-json.js";
import { decodeProtobufRequest } from "./decode-protobuf.js";
import { InflatedTooLarge, gunzipBounded } from "./inflate.js";
import type { OtlpEncoding } from "./response.js";
import { UndecodableBody, countSpans, type ResourceSpans } from "./spans.js";

/** Largest body as sent (compressed or not), as POST /v1/events/batch. */
export const MAX_TRACES_BODY_BYTES = 5 * 1024 * 1024;
/** Largest body once inflated: a gzip bomb is refused on reaching it. */
export const MAX_INFLATED_BYTES = 32 * 1024 * 1024;
/** Most spans in one export: four times the SDKs' default batch of 512. */
export const MAX_SPANS_PER_REQUEST = 2048;

/** The encoding of a Content-Type (parameters such as charset ignored), or undefined when OTLP has none. */
export function encodingOf(contentType: string): OtlpEncoding | undefined {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
}

function undecodable(message: string, cause?: unknown): ApiError {
  return new ApiError(
    "VALIDATION_ERROR",
    `the body is not an OTLP ExportTraceServiceRequest: ${message}`,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

async function inflated(raw: RawBody): Promise<Buffer> {
  const coding = raw.contentEncoding.trim().toLowerCase();
  if (coding === "" || coding === "identity") return raw.bytes;
  if (coding !== "gzip")
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `Content-Encoding ${coding} is not supported; send gzip or none`);
  try {
    return await gunzipBounded(raw.bytes, MAX_INFLATED_BYTES);
  } catch (error) {
    if (error instanceof InflatedTooLarge)
      throw new ApiError("PAYLOAD_TOO_LARGE", error.message, undefined, { cause: error });
    if (error instanceof UndecodableBody) throw undecodable(error.message, error);
    throw error;
  }
}

/** A trace export's body, inflated, with its encoding: what decodeTraceBody reads. */
export interface TraceBody {
  encoding: OtlpEncoding;
  bytes: Buffer;
}

/** The body of a trace export, inflated; ApiError 415 or 413 for a body that cannot be one. */
export async function readTraceBody(raw: RawBody): Promise<TraceBody> {
  const encoding = encodingOf(raw.contentType);
  if (encoding === undefined)
    throw new ApiError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Content-Type must be application/x-protobuf or application/json, not ${JSON.stringify(raw.contentType)}`,
    );
  return { encoding, bytes: await inflated(raw) };
}

/**
 * The spans of a trace export; ApiError 400 for a body that does not decode, 413 past the spans cap. `keep`
 * names the attributes protobuf bodies keep (JSON bodies keep all: they are not the exporters' default).
 */
export function decodeTraceBody({ encoding, bytes }: TraceBody, keep: AttributeFilter): ResourceSpans[] {
  let request: ResourceSpans[];
  try {
    if (encoding === "protobuf") request = decodeProtobufRequest(bytes, keep);
    else request = decodeJsonRequest(JSON.parse(bytes.toString("utf8")) as unknown);
  } catch (error) {
    if (error instanceof UndecodableBody || error instanceof SyntaxError) throw undecodable(error.message, error);
    throw error;
  }
  const spans = countSpans(request);
  if (spans > MAX_SPANS_PER_REQUEST)
    throw new ApiError("PAYLOAD_TOO_LARGE", `an export may hold at most ${MAX_SPANS_PER_REQUEST} spans (got ${spans})`);
  return request;
}
