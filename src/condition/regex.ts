// MATCHES patterns on RE2 (re2js): linear-time search, so a user's pattern can never stall an actor.
import { RE2JS } from "re2js";

export interface Pattern {
  /** True when the pattern occurs anywhere in `text`; anchor with `^...$` for a full match. */
  test(text: string): boolean;
}

/** Compiles an RE2 pattern, or returns why RE2 rejects it (backreferences, lookarounds, bad syntax). */
export function compilePattern(source: string): Pattern | { error: string } {
  try {
    // Flags 0: no lookbehinds, so the pattern set is exactly RE2's.
    const compiled = RE2JS.compile(source, 0);
    return { test: (text) => compiled.test(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: message };
  }
}
