// ExportTraceServiceRequest from OTLP/JSON: lowerCamelCase names, hex ids, int64 as decimal strings, enums as
// integers; unknown fields are ignored, as the OTLP specification asks of receivers.
import {
  UndecodableBody,
  type AttributeValue,
  type Attributes,
  type OtlpSpan,
  type OtlpSpanEvent,
  type ResourceSpans,
} from "./spans.js";

type Json = Record<string, unknown>;

const HEX = /^[0-9a-fA-F]*$/;

function object(value: unknown, what: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UndecodableBody(`${what} must be an object`);
  return value as Json;
}

/** An optional repeated field: absent or null is empty. */
function list(value: unknown, what: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new UndecodableBody(`${what} must be an array`);
  return value;
}

function text(value: unknown, what: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new UndecodableBody(`${what} must be a string`);
  return value;
}

function hexId(value: unknown, what: string): string {
  const id = text(value, what);
  if (!HEX.test(id) || id.length % 2 !== 0) throw new UndecodableBody(`${what} must be hex`);
  return id.toLowerCase();
}

/** A uint64/int64 field: a decimal string or a JSON number. */
function integer(value: unknown, what: string): number {
  if (value === undefined || value === null) return 0;
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new UndecodableBody(`${what} must be an integer`);
  return n;
}

function int64(value: unknown, what: string): number | string {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^-?\d{1,20}$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : BigInt.asIntN(64, BigInt(value)).toString();
  }
  throw new UndecodableBody(`${what} must be an int64`);
}

function anyValue(raw: unknown, what: string): AttributeValue {
  if (raw === undefined || raw === null) return null;
  const v = object(raw, what);
  if ("stringValue" in v) return text(v.stringValue, `${what}.stringValue`);
  if ("boolValue" in v) {
    if (typeof v.boolValue !== "boolean") throw new UndecodableBody(`${what}.boolValue must be a boolean`);
    return v.boolValue;
  }
  if ("intValue" in v) return int64(v.intValue, `${what}.intValue`);
  if ("doubleValue" in v) {
    const d = v.doubleValue;
    if (typeof d === "number") return d;
    if (d === "NaN" || d === "Infinity" || d === "-Infinity") return Number(d);
    throw new UndecodableBody(`${what}.doubleValue must be a number`);
  }
  if ("arrayValue" in v)
    return list(object(v.arrayValue, `${what}.arrayValue`).values, `${what}.arrayValue.values`).map((x, i) =>
      anyValue(x, `${what}.arrayValue.values[${i}]`),
    );
  if ("kvlistValue" in v) {
    const out: { [key: string]: AttributeValue } = {};
    const into = new Map<string, AttributeValue>();
    attributes(object(v.kvlistValue, `${what}.kvlistValue`).values, `${what}.kvlistValue.values`, into);
    for (const [k, x] of into) out[k] = x;
    return out;
  }
  if ("bytesValue" in v) return text(v.bytesValue, `${what}.bytesValue`);
  return null;
}

function attributes(raw: unknown, what: string, into: Attributes): Attributes {
  list(raw, what).forEach((item, i) => {
    const kv = object(item, `${what}[${i}]`);
    const key = text(kv.key, `${what}[${i}].key`);
    const value = anyValue(kv.value, `${what}[${i}].value`);
    // __proto__ as a key would reach the prototype of a properties object later: never kept.
    if (key !== "" && key !== "__proto__") into.set(key, value);
  });
  return into;
}

function span(raw: unknown, what: string): OtlpSpan {
  const s = object(raw, what);
  const events: OtlpSpanEvent[] = list(s.events, `${what}.events`).map((e, i) => {
    const event = object(e, `${what}.events[${i}]`);
    return {
      name: text(event.name, `${what}.events[${i}].name`),
      attributes: attributes(event.attributes, `${what}.events[${i}].attributes`, new Map()),
    };
  });
  const status = s.status === undefined || s.status === null ? {} : object(s.status, `${what}.status`);
  return {
    traceId: hexId(s.traceId, `${what}.traceId`),
    spanId: hexId(s.spanId, `${what}.spanId`),
    parentSpanId: hexId(s.parentSpanId, `${what}.parentSpanId`),
    name: text(s.name, `${what}.name`),
    startNs: integer(s.startTimeUnixNano, `${what}.startTimeUnixNano`),
    endNs: integer(s.endTimeUnixNano, `${what}.endTimeUnixNano`),
    attributes: attributes(s.attributes, `${what}.attributes`, new Map()),
    events,
    statusCode: integer(status.code, `${what}.status.code`),
  };
}

/** Decodes a parsed OTLP/JSON ExportTraceServiceRequest; throws UndecodableBody naming the first bad field. */
export function decodeJsonRequest(body: unknown): ResourceSpans[] {
  const request = object(body, "the request");
  return list(request.resourceSpans, "resourceSpans").map((item, i) => {
    const at = `resourceSpans[${i}]`;
    const r = object(item, at);
    const resource = r.resource === undefined || r.resource === null ? {} : object(r.resource, `${at}.resource`);
    const spans: OtlpSpan[] = [];
    list(r.scopeSpans, `${at}.scopeSpans`).forEach((scope, j) => {
      list(object(scope, `${at}.scopeSpans[${j}]`).spans, `${at}.scopeSpans[${j}].spans`).forEach((s, k) =>
        spans.push(span(s, `${at}.scopeSpans[${j}].spans[${k}]`)),
      );
    });
    return { resource: attributes(resource.attributes, `${at}.resource.attributes`, new Map()), spans };
  });
}
