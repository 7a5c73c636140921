// Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the
// base64-decoded secret, one signature per live secret, space-separated.
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

export function signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The `webhook-signature` header: a signature with every live secret. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signature(secret, messageId, timestampSeconds, body)).join(" ");
}
