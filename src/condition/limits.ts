// The size limits that keep one user's condition from costing the service: checked by both parsers.
import { childrenOf, isTerm, type Condition } from "./ast.js";

/** Longest condition text, in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 4096;
/** Longest JSON form given as a string, in UTF-8 bytes: JSON spells the same condition out at length. */
export const MAX_JSON_BYTES = 65_536;
/** Most terms (actions, counts, comparisons, matches, IDLEs) in one condition. */
export const MAX_TERMS = 64;
/** Deepest nesting of operators (NOT, AND, OR, G, F) above a term, and of parentheses in the text form. */
export const MAX_DEPTH = 16;
/** Longest action name an event may carry, so a longer name in a condition could never match. */
export const MAX_ACTION_LENGTH = 128;

/** UTF-8 length without allocating, stopping early once over `limit`. */
export function utf8Length(text: string, limit: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Operator depth of a tree: 0 for a term, one more per NOT/AND/OR/G/F above it. */
export function depthOf(node: Condition): number {
  if (isTerm(node)) return 0;
  let deepest = 0;
  for (const child of childrenOf(node)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

export function termCount(node: Condition): number {
  if (isTerm(node)) return 1;
  let total = 0;
  for (const child of childrenOf(node)) total += termCount(child);
  return total;
}
