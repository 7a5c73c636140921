// Turns a condition tree into flat arrays the evaluator walks without allocating: done once per condition.
import type { Comparator, Condition, Literal } from "./ast.js";
import { formatCondition, termText } from "./format.js";
import { compilePattern, type Pattern } from "./regex.js";

export type NodeKind = Condition["kind"];

/**
 * One node in post-order (children before parents, the root last). One shape for every kind keeps the
 * evaluator's loops monomorphic; fields a kind does not use hold -1 or empty values.
 */
export interface CompiledNode {
  readonly kind: NodeKind;
  /** Index into state.counts (action, count). */
  readonly countSlot: number;
  /** Index into state.facts (compare, match). */
  readonly factSlot: number;
  /** Index into state.matched and compiled.patterns (match). */
  readonly matchSlot: number;
  /** Index into state.memory (always, eventually). */
  readonly memorySlot: number;
  readonly op: Comparator;
  /** COUNT bound, or the IDLE window in ms. */
  readonly bound: number;
  readonly literal: Literal;
  /** Child node indexes (and, or); the single child of not/always/eventually is children[0]. */
  readonly children: readonly number[];
  /** The term's text without glyph or bracket, for annotation. */
  readonly text: string;
}

/** What one event of an action can change. */
export interface ActionBinding {
  readonly countSlot: number;
  readonly facts: ReadonlyArray<{ readonly slot: number; readonly segments: readonly string[]; readonly matchSlots: readonly number[] }>;
}

export interface CompiledCondition {
  readonly condition: Condition;
  /** Canonical text. */
  readonly text: string;
  readonly nodes: readonly CompiledNode[];
  readonly root: number;
  readonly countSlots: number;
  readonly factSlots: number;
  readonly memorySlots: number;
  /** One compiled RE2 pattern per match term, indexed by matchSlot. */
  readonly patterns: readonly Pattern[];
  readonly byAction: ReadonlyMap<string, ActionBinding>;
  /** Distinct IDLE windows, ascending: each is a point of the trace after the last event. */
  readonly idleWindows: readonly number[];
  /** Scratch space for one evaluation at a time; the module is synchronous, so sharing it is safe. */
  readonly values: Uint8Array;
  readonly progress: Float64Array;
}

interface MutableBinding {
  countSlot: number;
  facts: Array<{ slot: number; segments: string[]; matchSlots: number[] }>;
}

export function compileCondition(condition: Condition): CompiledCondition {
  const nodes: CompiledNode[] = [];
  const byAction = new Map<string, MutableBinding>();
  const patterns: Pattern[] = [];
  const idle = new Set<number>();
  let countSlots = 0;
  let factSlots = 0;
  let memorySlots = 0;

  const binding = (action: string): MutableBinding => {
    let found = byAction.get(action);
    if (found === undefined) {
      found = { countSlot: -1, facts: [] };
      byAction.set(action, found);
    }
    return found;
  };
  const countSlot = (action: string): number => {
    const bound = binding(action);
    if (bound.countSlot < 0) bound.countSlot = countSlots++;
    return bound.countSlot;
  };
  const fact = (action: string, path: string): { slot: number; segments: string[]; matchSlots: number[] } => {
    const bound = binding(action);
    let found = bound.facts.find((f) => f.segments.join(".") === path);
    if (found === undefined) {
      found = { slot: factSlots++, segments: path.split("."), matchSlots: [] };
      bound.facts.push(found);
    }
    return found;
  };

  const base = { countSlot: -1, factSlot: -1, matchSlot: -1, memorySlot: -1, op: "==" as Comparator, bound: 0, literal: 0, children: [], text: "" };

  const visit = (node: Condition): number => {
    switch (node.kind) {
      case "action":
        nodes.push({ ...base, kind: "action", countSlot: countSlot(node.action), text: termText(node) });
        break;
      case "count":
        nodes.push({ ...base, kind: "count", countSlot: countSlot(node.action), op: node.op, bound: node.count, text: termText(node) });
        break;
      case "compare":
        nodes.push({
          ...base,
          kind: "compare",
          factSlot: fact(node.action, node.path).slot,
          op: node.op,
          literal: node.value,
          text: termText(node),
        });
        break;
      case "match": {
        const pattern = compilePattern(node.pattern);
        // The parser already rejected patterns RE2 cannot compile; a hand-built tree may not have been parsed.
        if ("error" in pattern) throw new Error(`invalid pattern ${JSON.stringify(node.pattern)}: ${pattern.error}`);
        const matchSlot = patterns.length;
        patterns.push(pattern);
        const slot = fact(node.action, node.path);
        slot.matchSlots.push(matchSlot);
        nodes.push({ ...base, kind: "match", factSlot: slot.slot, matchSlot, text: termText(node) });
        break;
      }
      case "idle":
        idle.add(node.ms);
        nodes.push({ ...base, kind: "idle", bound: node.ms, text: termText(node) });
        break;
      case "and":
      case "or": {
        const children = node.operands.map(visit);
        nodes.push({ ...base, kind: node.kind, children });
        break;
      }
      case "not": {
        const child = visit(node.operand);
        nodes.push({ ...base, kind: "not", children: [child] });
        break;
      }
      case "always":
      case "eventually": {
        const child = visit(node.operand);
        nodes.push({ ...base, kind: node.kind, children: [child], memorySlot: memorySlots++ });
        break;
      }
    }
    return nodes.length - 1;
  };

  const root = visit(condition);
  return {
    condition,
    text: formatCondition(condition),
    nodes,
    root,
    countSlots,
    factSlots,
    memorySlots,
    patterns,
    byAction,
    idleWindows: [...idle].sort((a, b) => a - b),
    values: new Uint8Array(nodes.length),
    progress: new Float64Array(nodes.length),
  };
}
