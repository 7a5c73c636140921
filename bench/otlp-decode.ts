// Decoding a 512-span OTLP export into what the mapping reads (src/otlp/spans.ts): the hand-written reader of
// src/otlp against protobufjs (its decode alone, and its decode plus the conversion the mapping would need:
// hex ids, attribute maps, nanosecond numbers), alternating the decoders so machine noise hits all alike.
import { performance } from "node:perf_hooks";
import { decodeProtobufRequest } from "../src/otlp/decode-protobuf.js";
import type { AttributeValue, Attributes, ResourceSpans } from "../src/otlp/spans.js";
import { ExportTraceServiceRequest, encodeExport, genAiExport } from "./otlp-proto.js";

interface PbAnyValue {
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

const num = (v: number | { toNumber(): number } | undefined): number => (v === undefined ? 0 : typeof v === "number" ? v : v.toNumber());
const hex = (b: Uint8Array): string => (b.length === 0 ? "" : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex"));

function value(v: PbAnyValue | undefined): AttributeValue {
  if (v === undefined) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return num(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return v.arrayValue.values.map(value);
  if (v.kvlistValue !== undefined) return Object.fromEntries(attributes(v.kvlistValue.values));
  return v.bytesValue === undefined ? null : Buffer.from(v.bytesValue).toString("base64");
}

function attributes(list: PbKeyValue[]): Attributes {
  const map: Attributes = new Map();
  for (const kv of list) map.set(kv.key, value(kv.value));
  return map;
}

/** protobufjs's decode, converted to the form the mapping reads. */
function protobufjsToSpans(b: Buffer): ResourceSpans[] {
  const request = ExportTraceServiceRequest.decode(b) as unknown as PbRequest;
  return request.resourceSpans.map((r) => ({
    resource: attributes(r.resource?.attributes ?? []),
    spans: r.scopeSpans.flatMap((s) =>
      s.spans.map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        startNs: num(span.startTimeUnixNano),
        endNs: num(span.endTimeUnixNano),
        attributes: attributes(span.attributes),
        events: span.events.map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
        statusCode: span.status?.code ?? 0,
      })),
    ),
  }));
}

const bytes = encodeExport(genAiExport(128));
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const ITERATIONS = Number(process.env.ITERATIONS ?? 300);

type Decoder = [name: string, decode: (b: Buffer) => unknown];

const decoders: Decoder[] = [
  ["hand-written reader (src/otlp/decode-protobuf.ts)", (b) => decodeProtobufRequest(b)],
  ["protobufjs 7 decode", (b) => ExportTraceServiceRequest.decode(b)],
  ["protobufjs 7 decode + conversion to the same form", protobufjsToSpans],
];

function time([, decode]: Decoder): number {
  const start = performance.now();
  for (let i = 0; i < ITERATIONS; i++) decode(bytes);
  return ((performance.now() - start) * 1000) / ITERATIONS;
}

for (const decoder of decoders) time(decoder); // warm-up
const samples = new Map<string, number[]>(decoders.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const decoder of round % 2 === 0 ? decoders : [...decoders].reverse()) samples.get(decoder[0])!.push(time(decoder));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`512-span export, ${bytes.length} bytes; median of ${ROUNDS} rounds of ${ITERATIONS} decodes\n`);
for (const [name, xs] of samples) process.stdout.write(`${name.padEnd(52)} ${median(xs).toFixed(0).padStart(6)} us/export  ${((median(xs) * 1000) / 512).toFixed(0).padStart(5)} ns/span\n`);
