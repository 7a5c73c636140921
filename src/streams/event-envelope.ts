// The event as it travels through a shard stream: what the edge validated, stamped with its receive time.
import { msgpack } from "../redis/msgpack.js";

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
}

export function packEnvelope(envelope: EventEnvelope): Buffer {
  return msgpack.pack(envelope);
}

export function unpackEnvelope(bytes: Buffer): EventEnvelope {
  return msgpack.unpack(bytes) as EventEnvelope;
}
