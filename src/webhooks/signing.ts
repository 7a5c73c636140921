// Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the
// base64-decoded secret, one signature per live secret, space-separated.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** Decoded keys by secret: decoding one per message was a good part of signing it. Few secrets are live. */
const keys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 1024;

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = createSecretKey(
      Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64"),
    );
    keys.set(secret, key);
  }
  return key;
}

/** One signature; `body` as the exact bytes sent. */
export function signature(secret: string, messageId: string, timestampSeconds: number, body: Buffer): string {
  return `v1,${createHmac("sha256", keyOf(secret)).update(`${messageId}.${timestampSeconds}.`).update(body).digest("base64")}`;
}

/** The `webhook-signature` header: a signature with every live secret. */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: Buffer,
): string {
  return secrets.map((secret) => signature(secret, messageId, timestampSeconds, body)).join(" ");
}
