// Redis orders strings by their UTF-8 bytes (ZRANGEBYLEX, sorted-set members); JavaScript's `<` orders
// them by UTF-16 code units. The two disagree once a string holds a character above U+FFFF (a surrogate
// pair, 0xD800-0xDFFF) where the other holds one in U+E000-U+FFFF: a merge of Redis-sorted lists must use
// Redis's order, or a page cursor skips or repeats members.

/** Compares two strings in the order of their UTF-8 bytes (which is code point order). */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates stand for code points above every unit from 0xE000 up: move them past 0xFFFF's place.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
