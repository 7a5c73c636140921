// ExportTraceServiceRequest from application/x-protobuf, read field by field (opentelemetry-proto, trace/v1).
// Each message is a loop over its tags up to its end offset; unknown fields are skipped, known fields of
// the wrong wire type refuse the body.
import type { AttributeFilter } from "./attribute-filter.js";
import { ProtoReader, RepeatedHex, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT } from "./protobuf-reader.js";
import {
  UndecodableBody,
  type AttributeValue,
  type Attributes,
  type OtlpSpan,
  type OtlpSpanEvent,
  type ResourceSpans,
} from "./spans.js";

/** The wire type a known field must have; the tag's own is in its low three bits. */
function check(tag: number, wanted: number): void {
  if ((tag & 7) !== wanted)
    throw new UndecodableBody(`field ${tag >>> 3} has wire type ${tag & 7}, expected ${wanted}`);
}

/** Tags are small varints: read as numbers, field number tag >>> 3 (numbers here are far below 2^28). */
function tagOf(r: ProtoReader, end: number): number {
  const tag = r.varint(end);
  if (tag < 8) throw new UndecodableBody("field number 0");
  return tag;
}

function anyValue(r: ProtoReader, end: number): AttributeValue {
  let value: AttributeValue = null;
  while (r.pos < end) {
    const tag = tagOf(r, end);
    switch (tag >>> 3) {
      case 1:
        check(tag, WIRE_BYTES);
        value = r.string(end);
        break;
      case 2:
        check(tag, WIRE_VARINT);
        value = r.varint(end) !== 0;
        break;
      case 3:
        check(tag, WIRE_VARINT);
        value = r.int64(end);
        break;
      case 4:
        check(tag, WIRE_FIXED64);
        value = r.double(end);
        break;
      case 5: {
        check(tag, WIRE_BYTES);
        const stop = r.delimited(end);
        const list: AttributeValue[] = [];
        while (r.pos < stop) {
          const inner = tagOf(r, stop);
          if (inner >>> 3 !== 1) r.skip(inner & 7, stop);
          else {
            check(inner, WIRE_BYTES);
            list.push(anyValue(r, r.delimited(stop)));
          }
        }
        value = list;
        break;
      }
      case 6: {
        check(tag, WIRE_BYTES);
        const stop = r.delimited(end);
        const map: Attributes = new Map();
        while (r.pos < stop) {
          const inner = tagOf(r, stop);
          if (inner >>> 3 !== 1) r.skip(inner & 7, stop);
          else {
            check(inner, WIRE_BYTES);
            keyValue(r, r.delimited(stop), map, undefined);
          }
        }
        value = Object.fromEntries(map);
        break;
      }
      case 7:
        check(tag, WIRE_BYTES);
        value = r.base64(end);
        break;
      default:
        r.skip(tag & 7, end);
    }
  }
  return value;
}

/**
 * One KeyValue into `into`. With `keep`, a key it does not name (undefined here) is not kept, and its value
 * is skipped unread when the key comes first, as every encoder writes it.
 */
function keyValue(r: ProtoReader, end: number, into: Attributes, keep: AttributeFilter | undefined): void {
  let key: string | undefined = "";
  let value: AttributeValue = null;
  while (r.pos < end) {
    const tag = tagOf(r, end);
    if (tag === 10) {
      if (keep === undefined) key = r.string(end);
      else {
        const stop = r.delimited(end);
        key = keep.match(r.buf, r.pos, stop);
        r.pos = stop;
      }
    } else if (tag === 18) {
      const stop = r.delimited(end);
      if (key === undefined) r.pos = stop;
      else value = anyValue(r, stop);
    } else if (tag >>> 3 === 1 || tag >>> 3 === 2) check(tag, WIRE_BYTES);
    else r.skip(tag & 7, end);
  }
  // __proto__ as a key would reach the prototype of a properties object later: never kept.
  if (key !== undefined && key !== "" && key !== "__proto__") into.set(key, value);
}

function spanEvent(r: ProtoReader, end: number, keep: AttributeFilter | undefined): OtlpSpanEvent {
  const event: OtlpSpanEvent = { name: "", attributes: new Map() };
  while (r.pos < end) {
    const tag = tagOf(r, end);
    if (tag === 18) event.name = r.string(end);
    else if (tag === 26) keyValue(r, r.delimited(end), event.attributes, keep);
    else if (tag >>> 3 === 2 || tag >>> 3 === 3) check(tag, WIRE_BYTES);
    else r.skip(tag & 7, end);
  }
  return event;
}

function statusCode(r: ProtoReader, end: number): number {
  let code = 0;
  while (r.pos < end) {
    const tag = tagOf(r, end);
    if (tag >>> 3 !== 3) {
      r.skip(tag & 7, end);
      continue;
    }
    check(tag, WIRE_VARINT);
    code = r.varint(end);
  }
  return code;
}

/** The trace and parent ids last read from a body (RepeatedHex). */
interface LastIds {
  trace: RepeatedHex;
  parent: RepeatedHex;
}

function span(r: ProtoReader, end: number, keep: AttributeFilter | undefined, ids: LastIds): OtlpSpan {
  const s: OtlpSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: "",
    name: "",
    startNs: 0,
    endNs: 0,
    attributes: new Map(),
    events: [],
    statusCode: 0,
  };
  while (r.pos < end) {
    const tag = tagOf(r, end);
    switch (tag >>> 3) {
      case 1:
        check(tag, WIRE_BYTES);
        s.traceId = ids.trace.read(r, end);
        break;
      case 2:
        check(tag, WIRE_BYTES);
        s.spanId = r.hex(end);
        break;
      case 4:
        check(tag, WIRE_BYTES);
        s.parentSpanId = ids.parent.read(r, end);
        break;
      case 5:
        check(tag, WIRE_BYTES);
        s.name = r.string(end);
        break;
      case 7:
        check(tag, WIRE_FIXED64);
        s.startNs = r.fixed64(end);
        break;
      case 8:
        check(tag, WIRE_FIXED64);
        s.endNs = r.fixed64(end);
        break;
      case 9:
        check(tag, WIRE_BYTES);
        keyValue(r, r.delimited(end), s.attributes, keep);
        break;
      case 11:
        check(tag, WIRE_BYTES);
        s.events.push(spanEvent(r, r.delimited(end), keep));
        break;
      case 15:
        check(tag, WIRE_BYTES);
        s.statusCode = statusCode(r, r.delimited(end));
        break;
      default:
        r.skip(tag & 7, end);
    }
  }
  return s;
}

function resourceSpans(r: ProtoReader, end: number, keep: AttributeFilter | undefined, ids: LastIds): ResourceSpans {
  const out: ResourceSpans = { resource: new Map(), spans: [] };
  while (r.pos < end) {
    const tag = tagOf(r, end);
    const number = tag >>> 3;
    if (number !== 1 && number !== 2) {
      r.skip(tag & 7, end);
      continue;
    }
    check(tag, WIRE_BYTES);
    const stop = r.delimited(end);
    // Resource.attributes (1) or ScopeSpans.spans (2): both the inner message's field whose number is the outer's.
    while (r.pos < stop) {
      const inner = tagOf(r, stop);
      if (inner >>> 3 !== number) {
        r.skip(inner & 7, stop);
        continue;
      }
      check(inner, WIRE_BYTES);
      if (number === 1) keyValue(r, r.delimited(stop), out.resource, keep);
      else out.spans.push(span(r, r.delimited(stop), keep, ids));
    }
  }
  return out;
}

/**
 * Decodes an ExportTraceServiceRequest; throws UndecodableBody for bytes that are not one. With `keep`,
 * only the span, event and resource attributes it names are kept (nested values whole).
 */
export function decodeProtobufRequest(body: Buffer, keep?: AttributeFilter): ResourceSpans[] {
  const r = new ProtoReader(body);
  const out: ResourceSpans[] = [];
  const ids: LastIds = { trace: new RepeatedHex(), parent: new RepeatedHex() };
  while (r.pos < body.length) {
    const tag = tagOf(r, body.length);
    if (tag >>> 3 !== 1) {
      r.skip(tag & 7, body.length);
      continue;
    }
    check(tag, WIRE_BYTES);
    out.push(resourceSpans(r, r.delimited(body.length), keep, ids));
  }
  return out;
}
