// Reading attributes the way the mapping needs: the first of several names, on the span then its resource.
import type { AttributeValue, Attributes } from "./spans.js";

/** A key-like value: a non-empty string, or an integer written out. */
export function keyText(value: AttributeValue | undefined): string | undefined {
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number" && Number.isInteger(value)) return String(value);
  return undefined;
}

/** The first name of `names` with a key-like value, each looked up on `span`, then on `resource`. */
export function firstKey(names: readonly string[], span: Attributes, resource: Attributes): string | undefined {
  for (const name of names) {
    const found = keyText(span.get(name)) ?? keyText(resource.get(name));
    if (found !== undefined) return found;
  }
  return undefined;
}

export function numberOf(value: AttributeValue | undefined): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

export function textOf(value: AttributeValue | undefined): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The first of `names` present on `attributes` as a number. */
export function firstNumber(attributes: Attributes, names: readonly string[]): number | undefined {
  for (const name of names) {
    const n = numberOf(attributes.get(name));
    if (n !== undefined) return n;
  }
  return undefined;
}

/** The first of `names` present on `attributes` as text. */
export function firstText(attributes: Attributes, names: readonly string[]): string | undefined {
  for (const name of names) {
    const t = textOf(attributes.get(name));
    if (t !== undefined) return t;
  }
  return undefined;
}
