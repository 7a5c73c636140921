// The JSON tree form (decisions section 2) to and from the typed tree; same checks as the text parser.
import { DEFAULT_PATH, type Comparator, type Condition, type Literal } from "./ast.js";
import { formatDuration, parseDuration } from "./duration.js";
import { ConditionParseError } from "./errors.js";
import { factText } from "./format.js";
import { MAX_DEPTH, MAX_TERMS } from "./limits.js";
import { actionNameProblem, pathProblem, splitFact } from "./names.js";
import type { ParseOptions } from "./parser.js";
import { flatten } from "./parser.js";
import { compilePattern } from "./regex.js";

export type JsonComparator = "eq" | "ne" | "gt" | "gte" | "lt" | "lte";

export type ConditionJson =
  | { action: string }
  | { fact: string; operator: JsonComparator; value: Literal }
  | { fact: string; operator: "match"; value: string }
  | { count: string; operator: JsonComparator; value: number }
  | { all: ConditionJson[] }
  | { any: ConditionJson[] }
  | { not: ConditionJson }
  | { always: ConditionJson }
  | { eventually: ConditionJson }
  | { idle: string };

const TO_COMPARATOR: Readonly<Record<JsonComparator, Comparator>> = {
  eq: "==",
  ne: "!=",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};
const FROM_COMPARATOR: Readonly<Record<Comparator, JsonComparator>> = {
  "==": "eq",
  "!=": "ne",
  ">": "gt",
  ">=": "gte",
  "<": "lt",
  "<=": "lte",
};

const SHAPES: ReadonlyArray<{ key: string; keys: readonly string[] }> = [
  { key: "all", keys: ["all"] },
  { key: "any", keys: ["any"] },
  { key: "not", keys: ["not"] },
  { key: "always", keys: ["always"] },
  { key: "eventually", keys: ["eventually"] },
  { key: "idle", keys: ["idle"] },
  { key: "action", keys: ["action"] },
  { key: "fact", keys: ["fact", "operator", "value"] },
  { key: "count", keys: ["count", "operator", "value"] },
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(message: string, path: string): ConditionParseError {
  return new ConditionParseError(path === "" ? message : `${message} at ${path}`, { path });
}

function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

class JsonReader {
  private terms = 0;

  constructor(private readonly options: ParseOptions) {}

  read(node: unknown, path: string, depth: number): Condition {
    if (!isObject(node)) throw fail("expected a condition object", path);
    const keys = Object.keys(node);
    const shape = SHAPES.find((candidate) => Object.hasOwn(node, candidate.key));
    if (shape === undefined) {
      throw fail(`expected one of ${SHAPES.map((s) => `"${s.key}"`).join(", ")}`, path);
    }
    for (const key of keys) {
      if (!shape.keys.includes(key))
        throw fail(`unexpected key ${JSON.stringify(key)} beside "${shape.key}"`, child(path, key));
    }
    for (const key of shape.keys) {
      if (!Object.hasOwn(node, key)) throw fail(`missing "${key}"`, child(path, key));
    }
    const first = node[shape.key];
    switch (shape.key) {
      case "all":
      case "any":
        return this.group(shape.key === "all" ? "and" : "or", first, child(path, shape.key), depth);
      case "not":
      case "always":
      case "eventually": {
        this.deeper(depth, path);
        const operand = this.read(first, child(path, shape.key), depth + 1);
        const kind = shape.key === "not" ? "not" : shape.key;
        return { kind, operand };
      }
      case "idle":
        return this.idle(first, child(path, "idle"));
      case "action":
        this.countTerm(path);
        return { kind: "action", action: this.action(first, child(path, "action")) };
      case "fact":
        return this.fact(node, path);
      default:
        return this.count(node, path);
    }
  }

  private group(kind: "and" | "or", items: unknown, path: string, depth: number): Condition {
    if (!Array.isArray(items) || items.length === 0) throw fail("expected a non-empty array", path);
    this.deeper(depth, path);
    const operands = items.map((item, i) => this.read(item, `${path}[${i}]`, depth + 1));
    // One operand needs no group; the text form has no way to write it.
    if (operands.length === 1 && operands[0] !== undefined) return operands[0];
    return { kind, operands: flatten(kind, operands) };
  }

  private idle(value: unknown, path: string): Condition {
    if (typeof value !== "string") throw fail('expected a duration string such as "1d"', path);
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (error) {
      throw fail(error instanceof Error ? error.message : "invalid duration", path);
    }
    if (ms === 0) throw fail("IDLE needs a duration of at least 1s", path);
    this.countTerm(path);
    return { kind: "idle", ms };
  }

  private fact(node: Record<string, unknown>, path: string): Condition {
    const factPath = child(path, "fact");
    if (typeof node.fact !== "string") throw fail('expected a string such as "review:score"', factPath);
    const { action: rawAction, path: property } = splitFact(node.fact);
    const action = this.action(rawAction, factPath);
    const problem = pathProblem(property);
    if (problem !== null) throw fail(problem, factPath);
    if (this.options.valueOnly === true && property !== DEFAULT_PATH) {
      throw fail(`only the 'value' property can be referenced here, not '${property}'`, factPath);
    }
    const operator = node.operator;
    const valuePath = child(path, "value");
    this.countTerm(path);
    if (operator === "match") {
      if (typeof node.value !== "string") throw fail("expected a pattern string", valuePath);
      const compiled = compilePattern(node.value);
      if ("error" in compiled) throw fail(`invalid pattern (${compiled.error})`, valuePath);
      return { kind: "match", action, path: property, pattern: node.value };
    }
    return {
      kind: "compare",
      action,
      path: property,
      op: this.comparator(operator, path, true),
      value: this.literal(node.value, valuePath),
    };
  }

  private count(node: Record<string, unknown>, path: string): Condition {
    const action = this.action(node.count, child(path, "count"));
    const op = this.comparator(node.operator, path, false);
    const value = node.value;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw fail("expected a non-negative integer", child(path, "value"));
    }
    this.countTerm(path);
    return { kind: "count", action, op, count: value === 0 ? 0 : value };
  }

  private comparator(operator: unknown, path: string, allowMatch: boolean): Comparator {
    if (typeof operator === "string" && Object.hasOwn(TO_COMPARATOR, operator)) {
      return TO_COMPARATOR[operator as JsonComparator];
    }
    const allowed = `eq, ne, gt, gte, lt, lte${allowMatch ? ", match" : ""}`;
    throw fail(
      `unknown operator ${JSON.stringify(operator) ?? "undefined"} (expected one of ${allowed})`,
      child(path, "operator"),
    );
  }

  private literal(value: unknown, path: string): Literal {
    if (typeof value === "string" || typeof value === "boolean") return value;
    if (typeof value === "number" && Number.isFinite(value)) return value === 0 ? 0 : value;
    throw fail("expected a literal: a finite number, a string, true or false", path);
  }

  private action(value: unknown, path: string): string {
    if (typeof value !== "string") throw fail("expected an action name", path);
    const problem = actionNameProblem(value);
    if (problem !== null) throw fail(problem, path);
    return value;
  }

  private countTerm(path: string): void {
    if (++this.terms > MAX_TERMS) throw fail(`more than ${MAX_TERMS} terms`, path);
  }

  private deeper(depth: number, path: string): void {
    if (depth + 1 > MAX_DEPTH) throw fail(`nesting deeper than ${MAX_DEPTH}`, path);
  }
}

/** Reads the JSON tree form (already parsed from JSON) into the typed tree. */
export function parseJsonForm(node: unknown, options: ParseOptions = {}): Condition {
  return new JsonReader(options).read(node, "", 0);
}

/** The JSON tree form of a condition; parsing it back gives the same tree. */
export function toConditionJson(condition: Condition): ConditionJson {
  switch (condition.kind) {
    case "action":
      return { action: condition.action };
    case "count":
      return { count: condition.action, operator: FROM_COMPARATOR[condition.op], value: condition.count };
    case "compare":
      return {
        fact: factText(condition.action, condition.path),
        operator: FROM_COMPARATOR[condition.op],
        value: condition.value,
      };
    case "match":
      return { fact: factText(condition.action, condition.path), operator: "match", value: condition.pattern };
    case "idle":
      return { idle: formatDuration(condition.ms) };
    case "and":
      return { all: condition.operands.map(toConditionJson) };
    case "or":
      return { any: condition.operands.map(toConditionJson) };
    case "not":
      return { not: toConditionJson(condition.operand) };
    case "always":
      return { always: toConditionJson(condition.operand) };
    case "eventually":
      return { eventually: toConditionJson(condition.operand) };
  }
}
