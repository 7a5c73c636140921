// The decoded form of an OTLP trace export: only what the mapping reads, the same whatever the wire encoding.

/** An attribute's value: OTLP's AnyValue, with int64 as a number when exact and as a decimal string beyond. */
export type AttributeValue = string | number | boolean | AttributeValue[] | { [key: string]: AttributeValue } | null;

export type Attributes = Map<string, AttributeValue>;

export interface OtlpSpanEvent {
  name: string;
  attributes: Attributes;
}

/** Status code ERROR in OTLP's Status.code enum. */
export const STATUS_ERROR = 2;

export interface OtlpSpan {
  /** Lowercase hex (each decoder guarantees it); "" when the wire held none. Its length is checked by the mapping, not the decoder. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** Nanoseconds since the epoch, as a double: exact to well under a microsecond, which ordering needs. */
  startNs: number;
  endNs: number;
  attributes: Attributes;
  events: OtlpSpanEvent[];
  statusCode: number;
}

/** The spans of one resource (scopes flattened: the mapping never reads the scope). */
export interface ResourceSpans {
  resource: Attributes;
  spans: OtlpSpan[];
}

/** A body that does not decode: answered 400 with a google.rpc.Status naming `message`. */
export class UndecodableBody extends Error {
  override readonly name = "UndecodableBody";
}

/** Number of spans across every resource. */
export function countSpans(request: readonly ResourceSpans[]): number {
  let n = 0;
  for (const r of request) n += r.spans.length;
  return n;
}
