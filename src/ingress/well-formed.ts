// Well-formed Unicode: text with a lone UTF-16 surrogate cannot be stored as sent. Redis receives UTF-8,
// where a lone surrogate becomes U+FFFD, so "alias\ud800" and "alias\udc00" would name one outcome while
// hashing to different shards. Such text is refused wherever it could reach a key or be stored.

// With the u flag, a paired surrogate is one code point; only a lone half is in category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

export const WELL_FORMED_RULE = "must be well-formed Unicode (no lone surrogate)";

export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The path of the first string or property name inside `value` that is not well-formed, or undefined. */
export function malformedTextPath(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return isWellFormed(value) ? undefined : path;
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = malformedTextPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [name, child] of Object.entries(value)) {
    const at = path === "" ? name : `${path}.${name}`;
    if (!isWellFormed(name)) return at;
    const found = malformedTextPath(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
