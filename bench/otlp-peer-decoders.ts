// The general-purpose protobuf decoders the hand-written reader is measured against (bench/otlp-decode.ts):
// protobufjs, @bufbuild/protobuf and pbf, each decoding an ExportTraceServiceRequest and then converted to
// the form the mapping reads (src/otlp/spans.ts: hex ids, attribute maps, nanoseconds as numbers).
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { PbfReader } from "pbf";
import { compile } from "pbf/compile";
import protobufSchema from "protocol-buffers-schema";
import type { Root } from "protobufjs";
import descriptor from "protobufjs/ext/descriptor/index.js";
import type { AttributeValue, Attributes, OtlpSpan, ResourceSpans } from "../src/otlp/spans.js";
import { ExportTraceServiceRequest, otlpRoot } from "./otlp-proto.js";

const hex = (b: Uint8Array | undefined): string =>
  b === undefined || b.length === 0 ? "" : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const num = (v: number | bigint | { toNumber(): number } | undefined): number =>
  v === undefined ? 0 : typeof v === "object" ? v.toNumber() : Number(v);

/** A span in each library's own field names, reduced to what the conversion reads. */
interface PeerSpan<KV> {
  traceId: Uint8Array;
  spanId: Uint8Array;
  /** pbf leaves an absent bytes field undefined. */
  parentSpanId: Uint8Array | undefined;
  name: string;
  start: number | bigint | { toNumber(): number } | undefined;
  end: number | bigint | { toNumber(): number } | undefined;
  attributes: KV[];
  events: { name: string; attributes: KV[] }[];
  code: number;
}

/** A decoded span's fields read one by one: protobufjs keeps defaults on the prototype, where a spread misses them. */
function peerSpan<KV>(
  span: Omit<PeerSpan<KV>, "start" | "end" | "code"> & { status?: { code: number } | undefined },
  start: PeerSpan<KV>["start"],
  end: PeerSpan<KV>["end"],
): PeerSpan<KV> {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    start,
    end,
    attributes: span.attributes,
    events: span.events,
    code: span.status?.code ?? 0,
  };
}

/** The conversion every library's messages need, given how to read one of its KeyValues. */
function converted<KV>(
  resources: { attributes: KV[]; spans: PeerSpan<KV>[] }[],
  pair: (kv: KV) => [string, AttributeValue],
): ResourceSpans[] {
  const attributes = (list: KV[]): Attributes => new Map(list.map(pair));
  return resources.map((r) => ({
    resource: attributes(r.attributes),
    spans: r.spans.map((s): OtlpSpan => ({
      traceId: hex(s.traceId),
      spanId: hex(s.spanId),
      parentSpanId: hex(s.parentSpanId),
      name: s.name,
      startNs: num(s.start),
      endNs: num(s.end),
      attributes: attributes(s.attributes),
      events: s.events.map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
      statusCode: s.code,
    })),
  }));
}

// --- protobufjs: reflection over the schema in otlp-proto.ts ---------------------------------------------

interface PbAnyValue {
  value?: string;
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | { toNumber(): number };
  doubleValue?: number;
  arrayValue?: { values: PbAnyValue[] };
  kvlistValue?: { values: PbKeyValue[] };
  bytesValue?: Uint8Array;
}
interface PbKeyValue {
  key: string;
  value?: PbAnyValue;
}
interface PbSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  startTimeUnixNano: number | { toNumber(): number };
  endTimeUnixNano: number | { toNumber(): number };
  attributes: PbKeyValue[];
  events: { name: string; attributes: PbKeyValue[] }[];
  status?: { code: number };
}
interface PbRequest {
  resourceSpans: { resource?: { attributes: PbKeyValue[] }; scopeSpans: { spans: PbSpan[] }[] }[];
}

/** protobufjs keeps every field's default on the prototype: its oneof getter (`value`) names the field set. */
function pbValue(v: PbAnyValue | undefined): AttributeValue {
  switch (v?.value) {
    case "stringValue":
      return v.stringValue ?? "";
    case "boolValue":
      return v.boolValue ?? false;
    case "intValue":
      return num(v.intValue);
    case "doubleValue":
      return v.doubleValue ?? 0;
    case "arrayValue":
      return (v.arrayValue?.values ?? []).map(pbValue);
    case "kvlistValue":
      return Object.fromEntries((v.kvlistValue?.values ?? []).map((kv) => [kv.key, pbValue(kv.value)]));
    case "bytesValue":
      return Buffer.from(v.bytesValue ?? []).toString("base64");
    default:
      return null;
  }
}

export const protobufjsDecode = (b: Buffer): unknown => ExportTraceServiceRequest.decode(b);

export function protobufjsToSpans(b: Buffer): ResourceSpans[] {
  const request = ExportTraceServiceRequest.decode(b) as unknown as PbRequest;
  const resources = request.resourceSpans.map((r) => ({
    attributes: r.resource?.attributes ?? [],
    spans: r.scopeSpans.flatMap((s) =>
      s.spans.map((span) => peerSpan(span, span.startTimeUnixNano, span.endTimeUnixNano)),
    ),
  }));
  return converted(resources, (kv) => [kv.key, pbValue(kv.value)]);
}

// --- @bufbuild/protobuf: its reflective decoder (what its generated code calls) over the same schema -----

type BufAnyValue = { value: { case: string | undefined; value?: unknown } };
interface BufKeyValue {
  key: string;
  value?: BufAnyValue;
}
interface BufSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: BufKeyValue[];
  events: { name: string; attributes: BufKeyValue[] }[];
  status?: { code: number };
}
interface BufRequest {
  resourceSpans: { resource?: { attributes: BufKeyValue[] }; scopeSpans: { spans: BufSpan[] }[] }[];
}

/** The request's descriptor, from protobufjs's schema written out as a FileDescriptorSet. */
const bufRequest: DescMessage = (() => {
  const set = (otlpRoot as Root & { toDescriptor(syntax: string): object }).toDescriptor("proto3");
  const registry = createFileRegistry(
    fromBinary(FileDescriptorSetSchema, descriptor.FileDescriptorSet.encode(set).finish()),
  );
  const message = registry.getMessage("ExportTraceServiceRequest");
  if (message === undefined) throw new Error("ExportTraceServiceRequest is not in the descriptor set");
  return message;
})();

function bufValue(v: BufAnyValue | undefined): AttributeValue {
  const inner = v?.value;
  switch (inner?.case) {
    case "stringValue":
    case "boolValue":
    case "doubleValue":
      return inner.value as string | boolean | number;
    case "intValue":
      return Number(inner.value);
    case "arrayValue":
      return (inner.value as { values: BufAnyValue[] }).values.map(bufValue);
    case "kvlistValue":
      return Object.fromEntries(
        (inner.value as { values: BufKeyValue[] }).values.map((kv) => [kv.key, bufValue(kv.value)]),
      );
    case "bytesValue":
      return Buffer.from(inner.value as Uint8Array).toString("base64");
    default:
      return null;
  }
}

export const bufbuildDecode = (b: Buffer): unknown => fromBinary(bufRequest, b);

export function bufbuildToSpans(b: Buffer): ResourceSpans[] {
  const request = fromBinary(bufRequest, b) as unknown as BufRequest;
  const resources = request.resourceSpans.map((r) => ({
    attributes: r.resource?.attributes ?? [],
    spans: r.scopeSpans.flatMap((s) =>
      s.spans.map((span) => peerSpan(span, span.startTimeUnixNano, span.endTimeUnixNano)),
    ),
  }));
  return converted(resources, (kv) => [kv.key, bufValue(kv.value)]);
}

// --- pbf: read functions compiled from the .proto text of the same messages -----------------------------

const OTLP_PROTO = `
syntax = "proto3";
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Span { bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; repeated Event events = 11; Status status = 15; }
message ScopeSpans { repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

interface PbfAnyValue {
  value?: string;
  string_value?: string;
  bool_value?: boolean;
  int_value?: number;
  double_value?: number;
  array_value?: { values: PbfAnyValue[] };
  kvlist_value?: { values: PbfKeyValue[] };
  bytes_value?: Uint8Array;
}
interface PbfKeyValue {
  key: string;
  value?: PbfAnyValue;
}
interface PbfSpan {
  trace_id: Uint8Array;
  span_id: Uint8Array;
  parent_span_id: Uint8Array;
  name: string;
  start_time_unix_nano: number;
  end_time_unix_nano: number;
  attributes: PbfKeyValue[];
  events: { name: string; attributes: PbfKeyValue[] }[];
  status?: { code: number };
}
interface PbfRequest {
  resource_spans: { resource?: { attributes: PbfKeyValue[] }; scope_spans: { spans: PbfSpan[] }[] }[];
}

const pbfRead = (
  compile(protobufSchema.parse(OTLP_PROTO)) as { readExportTraceServiceRequest: (pbf: PbfReader) => PbfRequest }
).readExportTraceServiceRequest;

function pbfValue(v: PbfAnyValue | undefined): AttributeValue {
  switch (v?.value) {
    case "string_value":
      return v.string_value ?? "";
    case "bool_value":
      return v.bool_value ?? false;
    case "int_value":
      return v.int_value ?? 0;
    case "double_value":
      return v.double_value ?? 0;
    case "array_value":
      return (v.array_value?.values ?? []).map(pbfValue);
    case "kvlist_value":
      return Object.fromEntries((v.kvlist_value?.values ?? []).map((kv) => [kv.key, pbfValue(kv.value)]));
    case "bytes_value":
      return Buffer.from(v.bytes_value ?? []).toString("base64");
    default:
      return null;
  }
}

export const pbfDecode = (b: Buffer): unknown => pbfRead(new PbfReader(b));

export function pbfToSpans(b: Buffer): ResourceSpans[] {
  const request = pbfRead(new PbfReader(b));
  const resources = request.resource_spans.map((r) => ({
    attributes: r.resource?.attributes ?? [],
    spans: r.scope_spans.flatMap((s) =>
      s.spans.map((span) =>
        peerSpan(
          { ...span, traceId: span.trace_id, spanId: span.span_id, parentSpanId: span.parent_span_id },
          span.start_time_unix_nano,
          span.end_time_unix_nano,
        ),
      ),
    ),
  }));
  return converted(resources, (kv) => [kv.key, pbfValue(kv.value)]);
}
