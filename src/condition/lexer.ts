// Splits condition text into tokens on demand, each with its position for error messages.
import type { Comparator } from "./ast.js";
import { ConditionParseError } from "./errors.js";
import { isActionChar, isNameStart } from "./names.js";

export type Token =
  | { readonly type: "name"; readonly text: string; readonly start: number; readonly end: number }
  | { readonly type: "(" | ")" | ":" | "end"; readonly start: number; readonly end: number }
  | { readonly type: "cmp"; readonly op: Comparator; readonly start: number; readonly end: number }
  | { readonly type: "string"; readonly value: string; readonly start: number; readonly end: number }
  | { readonly type: "number"; readonly value: number; readonly start: number; readonly end: number };

const COMPARATORS: ReadonlySet<string> = new Set([">=", ">", "<=", "<", "==", "!="]);
const OPERATOR_CHARS = "<>=!";
// JSON's number and string grammars, so literals print back exactly as JSON.stringify writes them.
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

export function columnError(message: string, offset: number): ConditionParseError {
  return new ConditionParseError(`${message} at column ${offset + 1}`, { column: offset + 1 });
}

export class Lexer {
  private pos = 0;
  private peeked: Token | null = null;

  constructor(readonly source: string) {}

  peek(): Token {
    this.peeked ??= this.scan();
    return this.peeked;
  }

  next(): Token {
    const token = this.peek();
    this.peeked = null;
    return token;
  }

  /** Reads a run of letters, digits and dots as raw text (a duration inside `IDLE(...)`), after whitespace. */
  readWord(): { text: string; start: number } {
    if (this.peeked !== null) {
      this.pos = this.peeked.start;
      this.peeked = null;
    }
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.source.length && /[0-9A-Za-z.]/.test(this.source.charAt(this.pos))) this.pos++;
    return { text: this.source.slice(start, this.pos), start };
  }

  private skipSpace(): void {
    while (this.pos < this.source.length) {
      const code = this.source.charCodeAt(this.pos);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) break;
      this.pos++;
    }
  }

  private scan(): Token {
    this.skipSpace();
    const src = this.source;
    const start = this.pos;
    if (start >= src.length) return { type: "end", start, end: start };
    const char = src.charAt(start);
    const code = src.charCodeAt(start);
    if (char === "(" || char === ")" || char === ":") {
      this.pos++;
      return { type: char, start, end: this.pos };
    }
    if (isNameStart(code)) {
      let end = start + 1;
      while (end < src.length && isActionChar(src.charCodeAt(end))) end++;
      this.pos = end;
      return { type: "name", text: src.slice(start, end), start, end };
    }
    if (OPERATOR_CHARS.includes(char)) {
      let end = start + 1;
      while (end < src.length && OPERATOR_CHARS.includes(src.charAt(end))) end++;
      const op = src.slice(start, end);
      if (!COMPARATORS.has(op)) {
        throw columnError(`unknown operator '${op}' (expected one of >= > <= < == !=)`, start);
      }
      this.pos = end;
      return { type: "cmp", op: op as Comparator, start, end };
    }
    if (char === '"') {
      STRING.lastIndex = start;
      const match = STRING.exec(src);
      if (match === null) throw columnError("unterminated or invalid string", start);
      this.pos = start + match[0].length;
      return { type: "string", value: JSON.parse(match[0]) as string, start, end: this.pos };
    }
    if (char === "-" || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = start;
      const match = NUMBER.exec(src);
      const end = start + (match?.[0].length ?? 0);
      if (match === null || (end < src.length && (isActionChar(src.charCodeAt(end)) || src.charAt(end) === "+"))) {
        throw columnError("invalid number", start);
      }
      const value = Number(match[0]);
      if (!Number.isFinite(value)) throw columnError("number out of range", start);
      this.pos = end;
      // -0 and 0 are the same JSON value; keep one so printing and reparsing give the same tree.
      return { type: "number", value: value === 0 ? 0 : value, start, end };
    }
    if (char === "&" || char === "|")
      throw columnError(`unexpected '${char}' (use ${char === "&" ? "AND" : "OR"})`, start);
    throw columnError(
      `unexpected character ${JSON.stringify(String.fromCodePoint(src.codePointAt(start) ?? code))}`,
      start,
    );
  }
}
