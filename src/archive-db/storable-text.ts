// PostgreSQL text and jsonb cannot hold U+0000. Where the archive keeps text for people to query (actions,
// idempotency keys, event properties), a NUL becomes U+FFFD; what the API presents comes from the stored
// msgpack bytes and is exact.

const NUL = /\u0000/g;

export function storableText(text: string): string {
  return text.includes("\u0000") ? text.replace(NUL, "\uFFFD") : text;
}

/** A JSON value with every string (and property name) made storable. */
export function storableJson(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(value)) copy[storableText(name)] = storableJson(child);
    return copy;
  }
  return value;
}
