// Compiled conditions by canonical text: outcomes copy a handful of distinct conditions, so each is parsed
// and its regexes compiled once per process, not once per event or read.
import { compileCondition, parseCondition, type CompiledCondition } from "../condition/index.js";

const MAX_ENTRIES = 10_000;
const cache = new Map<string, CompiledCondition>();

export function compiledCondition(text: string): CompiledCondition {
  const hit = cache.get(text);
  if (hit) return hit;
  const compiled = compileCondition(parseCondition(text));
  if (cache.size >= MAX_ENTRIES) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(text, compiled);
  return compiled;
}
