// ExportTraceServiceRequest from application/x-protobuf, read field by field (opentelemetry-proto, trace/v1).
import { ProtoReader, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT } from "./protobuf-reader.js";
import { UndecodableBody, type AttributeValue, type Attributes, type OtlpSpan, type OtlpSpanEvent, type ResourceSpans } from "./spans.js";

/** Reads each field of a message: `field` handles the known ones and returns false for the rest, which are skipped. */
function eachField(r: ProtoReader, field: (number: number, wireType: number) => boolean): void {
  while (r.pos < r.end) {
    const tag = r.varint();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (number === 0) throw new UndecodableBody("field number 0");
    if (!field(number, wireType)) r.skip(wireType);
  }
}

function expect(wireType: number, wanted: number, what: string): void {
  if (wireType !== wanted) throw new UndecodableBody(`${what} has wire type ${wireType}, expected ${wanted}`);
}

function anyValue(r: ProtoReader): AttributeValue {
  let value: AttributeValue = null;
  eachField(r, (n, w) => {
    switch (n) {
      case 1:
        expect(w, WIRE_BYTES, "AnyValue.string_value");
        value = r.string();
        return true;
      case 2:
        expect(w, WIRE_VARINT, "AnyValue.bool_value");
        value = r.varint() !== 0;
        return true;
      case 3:
        expect(w, WIRE_VARINT, "AnyValue.int_value");
        value = r.int64();
        return true;
      case 4:
        expect(w, WIRE_FIXED64, "AnyValue.double_value");
        value = r.double();
        return true;
      case 5: {
        expect(w, WIRE_BYTES, "AnyValue.array_value");
        const list: AttributeValue[] = [];
        const inner = r.message();
        eachField(inner, (m, mw) => (m === 1 ? (expect(mw, WIRE_BYTES, "ArrayValue.values"), list.push(anyValue(inner.message())), true) : false));
        value = list;
        return true;
      }
      case 6: {
        expect(w, WIRE_BYTES, "AnyValue.kvlist_value");
        const object: { [key: string]: AttributeValue } = {};
        const inner = r.message();
        eachField(inner, (m, mw) => (m === 1 ? (expect(mw, WIRE_BYTES, "KeyValueList.values"), keyValue(inner.message(), (k, v) => (object[k] = v)), true) : false));
        value = object;
        return true;
      }
      case 7: {
        expect(w, WIRE_BYTES, "AnyValue.bytes_value");
        const [start, end] = r.bytes();
        value = r.buf.toString("base64", start, end);
        return true;
      }
      default:
        return false;
    }
  });
  return value;
}

function keyValue(r: ProtoReader, put: (key: string, value: AttributeValue) => void): void {
  let key = "";
  let value: AttributeValue = null;
  eachField(r, (n, w) => {
    if (n === 1) {
      expect(w, WIRE_BYTES, "KeyValue.key");
      key = r.string();
      return true;
    }
    if (n === 2) {
      expect(w, WIRE_BYTES, "KeyValue.value");
      value = anyValue(r.message());
      return true;
    }
    return false;
  });
  // __proto__ as a key would reach the prototype of a properties object later: never kept.
  if (key !== "" && key !== "__proto__") put(key, value);
}

function attributeInto(r: ProtoReader, wireType: number, attributes: Attributes): void {
  expect(wireType, WIRE_BYTES, "attributes");
  keyValue(r.message(), (k, v) => attributes.set(k, v));
}

function spanEvent(r: ProtoReader): OtlpSpanEvent {
  const event: OtlpSpanEvent = { name: "", attributes: new Map() };
  eachField(r, (n, w) => {
    if (n === 2) {
      expect(w, WIRE_BYTES, "Event.name");
      event.name = r.string();
      return true;
    }
    if (n === 3) {
      attributeInto(r, w, event.attributes);
      return true;
    }
    return false;
  });
  return event;
}

function statusCode(r: ProtoReader): number {
  let code = 0;
  eachField(r, (n, w) => (n === 3 ? (expect(w, WIRE_VARINT, "Status.code"), (code = r.varint()), true) : false));
  return code;
}

function span(r: ProtoReader): OtlpSpan {
  const s: OtlpSpan = { traceId: "", spanId: "", parentSpanId: "", name: "", startNs: 0, endNs: 0, attributes: new Map(), events: [], statusCode: 0 };
  eachField(r, (n, w) => {
    switch (n) {
      case 1:
        expect(w, WIRE_BYTES, "Span.trace_id");
        s.traceId = r.hex();
        return true;
      case 2:
        expect(w, WIRE_BYTES, "Span.span_id");
        s.spanId = r.hex();
        return true;
      case 4:
        expect(w, WIRE_BYTES, "Span.parent_span_id");
        s.parentSpanId = r.hex();
        return true;
      case 5:
        expect(w, WIRE_BYTES, "Span.name");
        s.name = r.string();
        return true;
      case 7:
        expect(w, WIRE_FIXED64, "Span.start_time_unix_nano");
        s.startNs = r.fixed64();
        return true;
      case 8:
        expect(w, WIRE_FIXED64, "Span.end_time_unix_nano");
        s.endNs = r.fixed64();
        return true;
      case 9:
        attributeInto(r, w, s.attributes);
        return true;
      case 11:
        expect(w, WIRE_BYTES, "Span.events");
        s.events.push(spanEvent(r.message()));
        return true;
      case 15:
        expect(w, WIRE_BYTES, "Span.status");
        s.statusCode = statusCode(r.message());
        return true;
      default:
        return false;
    }
  });
  return s;
}

function resourceSpans(r: ProtoReader): ResourceSpans {
  const out: ResourceSpans = { resource: new Map(), spans: [] };
  eachField(r, (n, w) => {
    if (n === 1) {
      expect(w, WIRE_BYTES, "ResourceSpans.resource");
      const resource = r.message();
      eachField(resource, (m, mw) => (m === 1 ? (attributeInto(resource, mw, out.resource), true) : false));
      return true;
    }
    if (n === 2) {
      expect(w, WIRE_BYTES, "ResourceSpans.scope_spans");
      const scope = r.message();
      eachField(scope, (m, mw) => (m === 2 ? (expect(mw, WIRE_BYTES, "ScopeSpans.spans"), out.spans.push(span(scope.message())), true) : false));
      return true;
    }
    return false;
  });
  return out;
}

/** Decodes an ExportTraceServiceRequest; throws UndecodableBody for bytes that are not one. */
export function decodeProtobufRequest(body: Buffer): ResourceSpans[] {
  const r = new ProtoReader(body, 0, body.length);
  const out: ResourceSpans[] = [];
  eachField(r, (n, w) => (n === 1 ? (expect(w, WIRE_BYTES, "ExportTraceServiceRequest.resource_spans"), out.push(resourceSpans(r.message())), true) : false));
  return out;
}
