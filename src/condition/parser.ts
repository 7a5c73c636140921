// Recursive-descent parser for the one-line text form (precedence NOT > AND > OR) into the typed tree.
import { DEFAULT_PATH, type Condition, type Literal, type Term } from "./ast.js";
import { parseDuration } from "./duration.js";
import { Lexer, columnError, type Token } from "./lexer.js";
import { MAX_DEPTH, MAX_TERMS } from "./limits.js";
import { actionNameProblem, pathProblem } from "./names.js";
import { compilePattern } from "./regex.js";

export interface ParseOptions {
  /** Variant B: a condition may read only `value`; any other property path is a parse error. */
  readonly valueOnly?: boolean;
}

// Words that are operators only when `(` follows them; anywhere else they are action names.
const CALLS = new Set(["COUNT", "G", "F", "IDLE"]);

class Parser {
  private readonly lexer: Lexer;
  private depth = 0;
  private terms = 0;

  constructor(
    source: string,
    private readonly options: ParseOptions,
  ) {
    this.lexer = new Lexer(source);
  }

  parse(): Condition {
    const result = this.parseOr();
    const token = this.lexer.peek();
    if (token.type === ")") throw columnError("unbalanced ')'", token.start);
    if (token.type !== "end") throw columnError("expected AND, OR or end of condition", token.start);
    return result;
  }

  private parseOr(): Condition {
    const operands = [this.parseAnd()];
    while (this.isKeyword(this.lexer.peek(), "OR")) {
      this.lexer.next();
      operands.push(this.parseAnd());
    }
    return operands.length === 1 && operands[0] !== undefined
      ? operands[0]
      : { kind: "or", operands: flatten("or", operands) };
  }

  private parseAnd(): Condition {
    const operands = [this.parseUnary()];
    while (this.isKeyword(this.lexer.peek(), "AND")) {
      this.lexer.next();
      operands.push(this.parseUnary());
    }
    return operands.length === 1 && operands[0] !== undefined
      ? operands[0]
      : { kind: "and", operands: flatten("and", operands) };
  }

  private parseUnary(): Condition {
    const token = this.lexer.peek();
    if (this.isKeyword(token, "NOT")) {
      this.lexer.next();
      return this.nested(token, () => ({ kind: "not", operand: this.parseUnary() }));
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Condition {
    const token = this.lexer.next();
    if (token.type === "(") {
      const inner = this.nested(token, () => this.parseOr());
      this.expect(")");
      return inner;
    }
    if (token.type !== "name" || this.isReserved(token)) throw columnError("expected a term", token.start);
    if (CALLS.has(token.text) && this.lexer.peek().type === "(") {
      this.lexer.next();
      return this.parseCall(token);
    }
    return this.parseFact(token);
  }

  private parseCall(name: Token & { type: "name" }): Condition {
    switch (name.text) {
      case "G":
      case "F": {
        const operand = this.nested(name, () => this.parseOr());
        this.expect(")");
        return name.text === "G" ? { kind: "always", operand } : { kind: "eventually", operand };
      }
      case "IDLE": {
        const word = this.lexer.readWord();
        if (word.text === "") throw columnError("expected a duration such as 30s, 1d12h or P1DT2H", word.start);
        let ms: number;
        try {
          ms = parseDuration(word.text);
        } catch (error) {
          throw columnError(error instanceof Error ? error.message : "invalid duration", word.start);
        }
        if (ms === 0) throw columnError("IDLE needs a duration of at least 1s", word.start);
        this.expect(")");
        return this.term(name, { kind: "idle", ms });
      }
      default: {
        const action = this.actionName(this.lexer.next());
        this.expect(")");
        const cmp = this.lexer.next();
        if (cmp.type !== "cmp") throw columnError(`expected a comparison after COUNT(${action})`, cmp.start);
        const bound = this.lexer.next();
        if (bound.type !== "number" || !Number.isSafeInteger(bound.value) || bound.value < 0) {
          throw columnError("expected a non-negative integer", bound.start);
        }
        return this.term(name, { kind: "count", action, op: cmp.op, count: bound.value });
      }
    }
  }

  private parseFact(name: Token & { type: "name" }): Condition {
    const action = this.actionName(name);
    let path = DEFAULT_PATH;
    let hasPath = false;
    const colon = this.lexer.peek();
    if (colon.type === ":" && colon.start === name.end) {
      this.lexer.next();
      const segment = this.lexer.next();
      if (segment.type !== "name" || segment.start !== colon.end) {
        throw columnError("expected a property path right after ':'", colon.end);
      }
      const problem = pathProblem(segment.text);
      if (problem !== null) throw columnError(problem, segment.start);
      path = segment.text;
      hasPath = true;
      if (this.options.valueOnly === true && path !== DEFAULT_PATH) {
        throw columnError(`only the 'value' property can be referenced here, not '${path}'`, segment.start);
      }
    }
    const next = this.lexer.peek();
    if (next.type === "cmp") {
      this.lexer.next();
      return this.term(name, { kind: "compare", action, path, op: next.op, value: this.literal() });
    }
    if (this.isKeyword(next, "MATCHES")) {
      this.lexer.next();
      const pattern = this.lexer.next();
      if (pattern.type !== "string") throw columnError("expected a quoted pattern after MATCHES", pattern.start);
      const compiled = compilePattern(pattern.value);
      if ("error" in compiled) throw columnError(`invalid pattern (${compiled.error})`, pattern.start);
      return this.term(name, { kind: "match", action, path, pattern: pattern.value });
    }
    if (hasPath) throw columnError(`expected a comparison or MATCHES after '${action}:${path}'`, next.start);
    return this.term(name, { kind: "action", action });
  }

  private literal(): Literal {
    const token = this.lexer.next();
    if (token.type === "number" || token.type === "string") return token.value;
    if (token.type === "name" && (token.text === "true" || token.text === "false")) return token.text === "true";
    throw columnError("expected a literal (JSON number, JSON string, true or false)", token.start);
  }

  private actionName(token: Token): string {
    if (token.type !== "name") throw columnError("expected an action name", token.start);
    const problem = actionNameProblem(token.text);
    if (problem !== null) throw columnError(problem, token.start);
    return token.text;
  }

  private term(at: Token, term: Term): Term {
    if (++this.terms > MAX_TERMS) throw columnError(`more than ${MAX_TERMS} terms`, at.start);
    return term;
  }

  private nested<T>(at: Token, inner: () => T): T {
    if (++this.depth > MAX_DEPTH) throw columnError(`nesting deeper than ${MAX_DEPTH}`, at.start);
    const result = inner();
    this.depth--;
    return result;
  }

  private expect(type: ")"): void {
    const token = this.lexer.next();
    if (token.type !== type) throw columnError(`expected '${type}'`, token.start);
  }

  private isKeyword(token: Token, word: string): boolean {
    return token.type === "name" && token.text === word;
  }

  private isReserved(token: Token & { type: "name" }): boolean {
    return token.text === "AND" || token.text === "OR" || token.text === "NOT" || token.text === "MATCHES";
  }
}

/** Merges operands of the same kind into their parent, so `a AND (b AND c)` is one three-way AND. */
export function flatten(kind: "and" | "or", operands: readonly Condition[]): Condition[] {
  const flat: Condition[] = [];
  for (const operand of operands) {
    if (operand.kind === kind) flat.push(...operand.operands);
    else flat.push(operand);
  }
  return flat;
}

/** Parses the text form. Throws ConditionParseError naming the column and what was expected. */
export function parseText(source: string, options: ParseOptions = {}): Condition {
  return new Parser(source, options).parse();
}
