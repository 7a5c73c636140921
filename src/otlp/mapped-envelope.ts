// The envelope of an event the mapping made, built directly when the event is valid by construction, else
// by the event routes' own validation (validateEvent), whose verdict is then the one that counts.
import { validateEvent, type Stamp } from "../ingress/validate-events.js";
import { isWellFormed } from "../ingress/well-formed.js";
import type { ErrorDetail } from "../errors/api-error.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import type { MappedEvent, SpanKeys } from "./map-span.js";
import { eventInput } from "./trace-keys.js";

/** Longest key an event may carry (validate-events.ts). */
const MAX_KEY_LENGTH = 512;

/** A key the mapping copied from an attribute (absent is fine: optional or checked by the caller). */
function fineKey(key: string | undefined): boolean {
  return key === undefined || (key.length > 0 && key.length <= MAX_KEY_LENGTH && isWellFormed(key));
}

/** A scalar the event routes keep as sent: well-formed text, a finite number, an exact integer. */
function fineScalar(value: unknown): boolean {
  if (typeof value === "string") return isWellFormed(value);
  if (typeof value === "number")
    return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  return typeof value === "boolean" || value === null;
}

/**
 * True when the properties the mapping made pass the routes' checks for sure: its names are its own
 * (letters, digits, `_`) and never `settles_at`, and the values it copied from attributes are fine scalars
 * or lists of them. Anything else (deeper values, `settles_at` named by an include) goes to validateEvent.
 */
function fineProperties(properties: Record<string, unknown>): boolean {
  for (const name in properties) {
    if (name === "settles_at") return false;
    const value = properties[name];
    if (Array.isArray(value)) {
      for (const item of value) if (!fineScalar(item)) return false;
    } else if (!fineScalar(value)) return false;
  }
  return true;
}

/**
 * True when a mapped event is valid by construction: the mapping's action (condition-safe, at most 128
 * characters: actionOf) and idempotency key (`otlp:` and hex ids) always are; the keys and properties it
 * copied from attributes are checked here.
 */
export function validAsMapped(event: MappedEvent, keys: SpanKeys & { outcome: string }): boolean {
  return fineKeys(keys) && fineProperties(event.properties);
}

/**
 * The keys object last found fine. Keys objects are never changed once built, and a request's spans of one
 * trace mostly share one (inherit) and come one after another (in outcome order), so each is checked once.
 */
let lastFineKeys: SpanKeys | undefined;

function fineKeys(keys: SpanKeys & { outcome: string }): boolean {
  if (keys === lastFineKeys) return true;
  const customer = customerOf(keys);
  const fine = fineKey(keys.outcome) && (customer === undefined || (fineKey(customer) && fineKey(keys.agent)));
  if (fine) lastFineKeys = keys;
  return fine;
}

/** The customer of a Variant B event (eventInput: a customer and no task), else undefined. */
function customerOf(keys: SpanKeys): string | undefined {
  return keys.task === undefined ? keys.customer : undefined;
}

/**
 * The envelope of one mapped event, or the problems that refuse it: built here when the event is valid by
 * construction, else validateEvent's verdict, so the answer is always validateEvent's (a property test in
 * mapped-envelope.test.ts holds the two together).
 */
export function mappedEnvelope(
  event: MappedEvent,
  keys: SpanKeys & { outcome: string },
  stamp: Stamp,
): EventEnvelope | ErrorDetail[] {
  if (!validAsMapped(event, keys)) return validateEvent(eventInput(event, keys), stamp);
  const customer = customerOf(keys);
  // Field by field in validateEvent's order, so both make envelopes of one shape.
  const envelope: EventEnvelope = {
    accountId: stamp.accountId,
    outcomeKey: keys.outcome,
    variant: customer === undefined ? "A" : "B",
    action: event.action,
    receivedAt: stamp.receivedAt,
  };
  if (customer !== undefined) {
    envelope.customerKey = customer;
    if (keys.agent !== undefined) envelope.agentKey = keys.agent;
  }
  envelope.properties = event.properties;
  envelope.idempotencyKey = event.idempotencyKey;
  return envelope;
}
