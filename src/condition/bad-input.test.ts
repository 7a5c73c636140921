// Malformed conditions: each fails fast with a ConditionParseError naming where and what was expected.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  ConditionParseError,
  applyEvent,
  compileCondition,
  evaluate,
  initialState,
  parseCondition,
  type ConditionInput,
} from "./index.js";

function parseError(input: unknown, options?: { valueOnly?: boolean }): ConditionParseError {
  try {
    parseCondition(input as ConditionInput, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ConditionParseError);
    return error as ConditionParseError;
  }
  throw new Error(`parsed without error: ${String(input)}`);
}

const nested = (depth: number, inner: string, wrap: (x: string) => string): string =>
  Array.from({ length: depth }).reduce<string>((acc) => wrap(acc), inner);

describe("text form", () => {
  const table: Array<[input: string, message: RegExp]> = [
    ["(a AND b", /^expected '\)' at column 9$/],
    ["COUNT(agent_response>=2", /^expected '\)' at column 21$/],
    ["a AND b)", /^unbalanced '\)' at column 8$/],
    [")", /expected a term at column 1$/],
    ["a => 3", /^unknown operator '=>' .* at column 3$/],
    ["a = 3", /^unknown operator '=' .* at column 3$/],
    ["a === 3", /^unknown operator '===' .* at column 3$/],
    ["a <> 3", /^unknown operator '<>'/],
    ["!a", /^unknown operator '!'/],
    ["COUNT()>=1", /^expected an action name at column 7$/],
    ["COUNT(a)", /^expected a comparison after COUNT\(a\) at column 9$/],
    ["COUNT(a) AND b", /^expected a comparison after COUNT\(a\) at column 10$/],
    ['COUNT(a) MATCHES "x"', /^expected a comparison after COUNT\(a\)/],
    ["COUNT(a)>=1.5", /^expected a non-negative integer at column 11$/],
    ["COUNT(a)>=-1", /^expected a non-negative integer/],
    ['COUNT(a)>="2"', /^expected a non-negative integer/],
    ["COUNT(a:b)>=1", /^expected '\)' at column 8$/],
    ["", /^expected a term at column 1$/],
    ["   ", /^expected a term at column 4$/],
    ["AND", /^expected a term at column 1$/],
    ["a AND", /^expected a term at column 6$/],
    ["a OR OR b", /^expected a term at column 6$/],
    ["NOT", /^expected a term at column 4$/],
    ["a b", /^expected AND, OR or end of condition at column 3$/],
    ["a and b", /^expected AND, OR or end of condition at column 3$/],
    [":score>=1", /^expected a term at column 1$/],
    ["1 AND a", /^expected a term at column 1$/],
    ["review:score", /^expected a comparison or MATCHES after 'review:score' at column 13$/],
    ["review: score>=4", /^expected a property path right after ':' at column 8$/],
    ["review :score>=4", /^expected AND, OR or end of condition at column 8$/],
    ["review:>=4", /^expected a property path right after ':'/],
    ["review:a-b>=1", /^invalid property path "a-b" at column 8$/],
    ["review:a..b>=1", /^invalid property path/],
    ["x>=", /^expected a literal .* at column 4$/],
    ["x>=null", /^expected a literal/],
    ["x>=gold", /^expected a literal/],
    ["x>='a'", /^unexpected character "'" at column 4$/],
    ['x>="abc', /^unterminated or invalid string at column 4$/],
    ['x>="a\\qb"', /^unterminated or invalid string/],
    ["x>=01", /^invalid number at column 4$/],
    ["x>=1.", /^invalid number/],
    ["x>=.5", /^unexpected character/],
    ["x>=+1", /^unexpected character/],
    ["x>=1e999", /^number out of range at column 4$/],
    ["x>=4x", /^invalid number/],
    ['x MATCHES "(a)\\\\1"', /^invalid pattern .* at column 11$/],
    ['x MATCHES "a(?=b)"', /^invalid pattern/],
    ['x MATCHES "(?<=a)b"', /^invalid pattern/],
    ['x MATCHES "["', /^invalid pattern/],
    ['x MATCHES "a{1001}"', /^invalid pattern/],
    ["x MATCHES 5", /^expected a quoted pattern after MATCHES at column 11$/],
    ["x MATCHES", /^expected a quoted pattern/],
    ["IDLE()", /^expected a duration .* at column 6$/],
    ["IDLE(0s)", /^IDLE needs a duration of at least 1s at column 6$/],
    ["IDLE(1x)", /^invalid duration "1x".* at column 6$/],
    ["IDLE(12h1d)", /^invalid duration/],
    ["IDLE(1y)", /^invalid duration/],
    ["IDLE(P1M)", /^invalid duration/],
    ["IDLE(1d", /^expected '\)' at column 8$/],
    ["IDLE(1.5h)", /^invalid duration "1.5h".* at column 6$/],
    ["G(a", /^expected '\)' at column 4$/],
    ["G()", /^expected a term at column 3$/],
    ["F(a) b", /^expected AND, OR or end of condition/],
    ["a && b", /^unexpected '&' \(use AND\) at column 3$/],
    ["a || b", /^unexpected '\|' \(use OR\) at column 3$/],
    ["a; b", /^unexpected character ";"/],
    ["a AND é", /^unexpected character "é" at column 7$/],
    ["MATCHES", /^expected a term/],
    ["x MATCHES MATCHES", /^expected a quoted pattern/],
    [`${"a".repeat(129)}`, /^action name longer than 128 characters at column 1$/],
    [`x${" ".repeat(4096)}`, /^condition longer than 4 KiB$/],
    [`x=="${"é".repeat(2046)}"`, /^condition longer than 4 KiB$/],
    [Array.from({ length: 65 }, (_, i) => `a${i}`).join(" AND "), /^more than 64 terms at column \d+$/],
    [nested(17, "a", (x) => `NOT ${x}`), /^nesting deeper than 16 at column 65$/],
    [nested(17, "a", (x) => `(${x})`), /^nesting deeper than 16 at column 17$/],
    [nested(17, "a", (x) => `G(${x})`), /^nesting deeper than 16/],
    [nested(16, "a", (x) => `b AND (c OR ${x})`), /^nesting deeper than 16/],
  ];
  test.each(table)("%s", (input, message) => {
    const error = parseError(input);
    expect(error.message).toMatch(message);
    if (/column (\d+)$/.test(error.message))
      expect(error.column).toBe(Number(/column (\d+)$/.exec(error.message)?.[1]));
  });

  test("limits are inclusive", () => {
    expect(() => parseCondition(Array.from({ length: 64 }, (_, i) => `a${i}`).join(" AND "))).not.toThrow();
    expect(() => parseCondition(nested(16, "a", (x) => `NOT ${x}`))).not.toThrow();
    expect(() => parseCondition(`x=="${"a".repeat(4090)}"`)).not.toThrow();
  });

  test("Variant B conditions may read only value", () => {
    expect(parseError("review:score>=4", { valueOnly: true }).message).toMatch(
      /^only the 'value' property can be referenced here, not 'score' at column 8$/,
    );
    expect(parseError('{"fact": "a:meta.x", "operator": "eq", "value": 1}', { valueOnly: true }).path).toBe("fact");
    expect(() => parseCondition("review:value>=4 AND review>=1 AND COUNT(a)>=1", { valueOnly: true })).not.toThrow();
  });
});

describe("JSON form", () => {
  const table: Array<[input: unknown, message: RegExp, path?: string]> = [
    ['{"fact": "x", "operator": "foo", "value": 1}', /^unknown operator "foo" .* at operator$/, "operator"],
    [
      '{"all": [{"action": "a"}, {"fact": "x", "operator": "gte"}]}',
      /^missing "value" at all\[1\]\.value$/,
      "all[1].value",
    ],
    ['{"all": []}', /^expected a non-empty array at all$/, "all"],
    ['{"any": {"action": "a"}}', /^expected a non-empty array at any$/],
    ['{"fact": "", "operator": "eq", "value": 1}', /^empty action name at fact$/],
    ['{"action": ""}', /^empty action name at action$/],
    ['{"action": "AND"}', /reserved word/],
    ['{"action": "a b"}', /^invalid action name/],
    ['{"fact": "x:a b", "operator": "eq", "value": 1}', /^invalid property path/],
    ['{"fact": "x:", "operator": "eq", "value": 1}', /^empty property path/],
    ["{}", /^expected one of "all", "any"/],
    [[], /^expected a condition object$/],
    ["[]", /^unexpected character "\[" at column 1$/],
    ['{"idle": "1y"}', /^invalid duration "1y"/, "idle"],
    ['{"idle": "0s"}', /at least 1s/],
    ['{"idle": 60}', /^expected a duration string/],
    [
      '{"count": "a", "operator": "match", "value": 1}',
      /^unknown operator "match" \(expected one of eq, ne, gt, gte, lt, lte\)/,
    ],
    ['{"count": "a", "operator": "gte", "value": 1.5}', /^expected a non-negative integer at value$/],
    ['{"count": "a", "operator": "gte"}', /^missing "value"/],
    ['{"fact": "x", "operator": "eq", "value": null}', /^expected a literal/],
    ['{"fact": "x", "operator": "eq", "value": {"a": 1}}', /^expected a literal/],
    ['{"fact": "x", "operator": "match", "value": "(a)\\\\1"}', /^invalid pattern/],
    ['{"fact": "x", "operator": "match", "value": 1}', /^expected a pattern string/],
    ['{"action": "a", "extra": 1}', /^unexpected key "extra" beside "action" at extra$/],
    ['{"not": {"action": "a"}, "all": []}', /^unexpected key "not" beside "all"/],
    ['{"__proto__": {"action": "a"}}', /^expected one of/],
    ['{"all": ', /^invalid JSON/],
    ['{"all": [{"action": "a"}]} x', /^invalid JSON/],
    [nested(17, '{"action": "a"}', (x) => `{"not": ${x}}`), /^nesting deeper than 16/],
    [
      JSON.stringify({ all: Array.from({ length: 65 }, (_, i) => ({ action: `a${i}` })) }),
      /^more than 64 terms at all\[64\]$/,
    ],
    [`{"action": "a", "pad": "${"x".repeat(70_000)}"}`, /^condition longer than 64 KiB$/],
    [null, /^expected a condition object$/],
    [42, /^expected a condition object$/],
    [undefined, /^expected a condition object$/],
    [{ not: "a" }, /^expected a condition object at not$/],
  ];
  test.each(table)("%s", (input, message, path) => {
    const error = parseError(input);
    expect(error.message).toMatch(message);
    if (path !== undefined) expect(error.path).toBe(path);
  });

  test("a hostile object still gives a ConditionParseError", () => {
    const hostile = {
      get action(): string {
        throw new TypeError("boom");
      },
    };
    expect(parseError(hostile).message).toMatch(/^invalid condition: boom$/);
  });

  test("deep objects fail on the depth limit, not the stack", () => {
    let deep: unknown = { action: "a" };
    for (let i = 0; i < 100_000; i++) deep = { not: deep };
    expect(parseError(deep).message).toMatch(/^nesting deeper than 16/);
  });
});

describe("catastrophic patterns", () => {
  test("(a+)+$ runs in linear time on a 100k-character input", () => {
    const compiled = compileCondition(parseCondition('x MATCHES "(a+)+$"'));
    const state = initialState(compiled, 0);
    applyEvent(compiled, state, { action: "x", properties: { value: `${"a".repeat(100_000)}!` }, at: 1 });
    expect(evaluate(compiled, state, 2).value).toBe("false");
    applyEvent(compiled, state, { action: "x", properties: { value: "a".repeat(100_000) }, at: 3 });
    expect(evaluate(compiled, state, 4).value).toBe("true");
  });

  test("(x+x+)+y and nested quantifiers stay linear", () => {
    const compiled = compileCondition(parseCondition('x MATCHES "^(x+x+)+y$" OR x MATCHES "(.*a){20}"'));
    const state = initialState(compiled, 0);
    applyEvent(compiled, state, { action: "x", properties: { value: "x".repeat(100_000) }, at: 1 });
    expect(evaluate(compiled, state, 2).value).toBe("false");
  });
});

describe("fuzz: parse never throws anything but ConditionParseError", () => {
  const check = (input: unknown): void => {
    try {
      parseCondition(input as ConditionInput);
    } catch (error) {
      if (!(error instanceof ConditionParseError)) throw error;
    }
  };
  const pieces = fc.constantFrom(
    "a",
    "b:c.d",
    "COUNT",
    "G",
    "F",
    "IDLE",
    "NOT",
    "AND",
    "OR",
    "MATCHES",
    "(",
    ")",
    ":",
    ">=",
    "==",
    "!=",
    "<",
    "=",
    '"x"',
    '"(a+)+$"',
    '"\\\\1"',
    "1",
    "-0",
    "1e5",
    "true",
    "null",
    "1d",
    "P1D",
    " ",
    "{",
    "}",
    "[",
    "]",
    ",",
    '"all"',
  );

  test("arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), check), { numRuns: 2000 });
  });

  test("token soup", () => {
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join("")),
        check,
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(" ")),
        check,
      ),
      { numRuns: 3000 },
    );
  });

  test("arbitrary JSON values and JSON texts", () => {
    fc.assert(fc.property(fc.anything(), check), { numRuns: 1000 });
    fc.assert(fc.property(fc.json(), check), { numRuns: 1000 });
  });
});
