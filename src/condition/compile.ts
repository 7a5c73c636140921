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
  readonly facts: ReadonlyArray<{
    readonly slot: number;
    readonly segments: readonly string[];
    readonly matchSlots: readonly number[];
  }>;
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
  const compiler = new Compiler();
  const root = compiler.visit(condition);
  const { nodes, countSlots, factSlots, memorySlots, patterns, byAction, idle } = compiler;
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

const BASE = {
  countSlot: -1,
  factSlot: -1,
  matchSlot: -1,
  memorySlot: -1,
  op: "==" as Comparator,
  bound: 0,
  literal: 0,
  children: [],
  text: "",
};

/** Lays a condition tree out as nodes in post-order, giving each term the slots its evaluation reads. */
class Compiler {
  readonly nodes: CompiledNode[] = [];
  readonly byAction = new Map<string, MutableBinding>();
  readonly patterns: Pattern[] = [];
  readonly idle = new Set<number>();
  countSlots = 0;
  factSlots = 0;
  memorySlots = 0;

  /** Adds the node of `node` (after its children's) and returns its index. */
  visit(node: Condition): number {
    switch (node.kind) {
      case "action":
        return this.add({ ...BASE, kind: "action", countSlot: this.countSlot(node.action), text: termText(node) });
      case "count":
        return this.add({
          ...BASE,
          kind: "count",
          countSlot: this.countSlot(node.action),
          op: node.op,
          bound: node.count,
          text: termText(node),
        });
      case "compare":
        return this.add({
          ...BASE,
          kind: "compare",
          factSlot: this.fact(node.action, node.path).slot,
          op: node.op,
          literal: node.value,
          text: termText(node),
        });
      case "match":
        return this.match(node);
      case "idle":
        this.idle.add(node.ms);
        return this.add({ ...BASE, kind: "idle", bound: node.ms, text: termText(node) });
      case "and":
      case "or": {
        const children = node.operands.map((operand) => this.visit(operand));
        return this.add({ ...BASE, kind: node.kind, children });
      }
      case "not":
        return this.add({ ...BASE, kind: "not", children: [this.visit(node.operand)] });
      case "always":
      case "eventually": {
        const child = this.visit(node.operand);
        return this.add({ ...BASE, kind: node.kind, children: [child], memorySlot: this.memorySlots++ });
      }
    }
  }

  private match(node: Extract<Condition, { kind: "match" }>): number {
    const pattern = compilePattern(node.pattern);
    // The parser already rejected patterns RE2 cannot compile; a hand-built tree may not have been parsed.
    if ("error" in pattern) throw new Error(`invalid pattern ${JSON.stringify(node.pattern)}: ${pattern.error}`);
    const matchSlot = this.patterns.length;
    this.patterns.push(pattern);
    const slot = this.fact(node.action, node.path);
    slot.matchSlots.push(matchSlot);
    return this.add({ ...BASE, kind: "match", factSlot: slot.slot, matchSlot, text: termText(node) });
  }

  private add(node: CompiledNode): number {
    this.nodes.push(node);
    return this.nodes.length - 1;
  }

  private binding(action: string): MutableBinding {
    let found = this.byAction.get(action);
    if (found === undefined) {
      found = { countSlot: -1, facts: [] };
      this.byAction.set(action, found);
    }
    return found;
  }

  private countSlot(action: string): number {
    const bound = this.binding(action);
    if (bound.countSlot < 0) bound.countSlot = this.countSlots++;
    return bound.countSlot;
  }

  private fact(action: string, path: string): { slot: number; segments: string[]; matchSlots: number[] } {
    const bound = this.binding(action);
    let found = bound.facts.find((f) => f.segments.join(".") === path);
    if (found === undefined) {
      found = { slot: this.factSlots++, segments: path.split("."), matchSlots: [] };
      bound.facts.push(found);
    }
    return found;
  }
}
