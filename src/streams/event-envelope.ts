// The event as it travels through a shard stream: what the edge validated, stamped with its receive time.
import { msgpack } from "../codec/msgpack.js";
import { packFramed, type FramedPayload } from "./stream-entry.js";

export type Variant = "A" | "B";

export interface EventEnvelope {
  /** Account that sent the event (from the token). */
  accountId: string;
  /** `outcome_key` (Variant A) or `key` (Variant B). */
  outcomeKey: string;
  variant: Variant;
  action: string;
  /** The event's open properties object, stored whole; absent when the client sent none. */
  properties?: Record<string, unknown>;
  idempotencyKey?: string;
  /** Variant B only. */
  agentKey?: string;
  /** Variant B only. */
  customerKey?: string;
  /** Server receive time at the HTTP edge, epoch milliseconds (UTC). */
  receivedAt: number;
  /** W3C traceparent of the request that sent it; only while tracing is on, so the worker can link to it. */
  traceparent?: string;
}

/** Leading element of the packed form; another value means another format (or not an envelope). */
const FORMAT = 1;

/**
 * Packs the envelope as a msgpack array in a fixed field order (absent fields nil): a third smaller than
 * a map and quicker both ways, which counts because every event is packed at the edge and unpacked by
 * its worker. The ingress passes a sampled request's `traceparent` here rather than setting it on the
 * envelope: set on 1% of the envelopes, the field gave the request path's objects a second shape.
 */
export function packEnvelope(e: EventEnvelope, traceparent: string | undefined = e.traceparent): Buffer {
  return packEnvelopeFramed(e, traceparent).payload;
}

/** The envelope packed (packEnvelope) together with its stream frame, in one copy (packFramed). */
export function packEnvelopeFramed(e: EventEnvelope, traceparent: string | undefined = e.traceparent): FramedPayload {
  return packFramed([
    FORMAT,
    e.accountId,
    e.outcomeKey,
    e.variant,
    e.action,
    e.properties ?? null,
    e.idempotencyKey ?? null,
    e.agentKey ?? null,
    e.customerKey ?? null,
    e.receivedAt,
    // Appended only when present: with tracing off an envelope is exactly as it always was.
    ...(traceparent === undefined ? [] : [traceparent]),
  ]);
}

/** The envelope packed by packEnvelope; throws when the bytes are not one. */
export function unpackEnvelope(bytes: Buffer): EventEnvelope {
  const t: unknown = msgpack.unpack(bytes);
  if (
    !Array.isArray(t) ||
    t[0] !== FORMAT ||
    (t.length !== 10 && t.length !== 11) ||
    typeof t[1] !== "string" ||
    typeof t[2] !== "string" ||
    typeof t[4] !== "string"
  ) {
    throw new Error("not a packed event envelope");
  }
  const envelope: EventEnvelope = {
    accountId: t[1],
    outcomeKey: t[2],
    variant: t[3] as Variant,
    action: t[4],
    receivedAt: t[9] as number,
  };
  if (t[5] !== null) envelope.properties = t[5] as Record<string, unknown>;
  if (t[6] !== null) envelope.idempotencyKey = t[6] as string;
  if (t[7] !== null) envelope.agentKey = t[7] as string;
  if (t[8] !== null) envelope.customerKey = t[8] as string;
  if (typeof t[10] === "string") envelope.traceparent = t[10];
  return envelope;
}
