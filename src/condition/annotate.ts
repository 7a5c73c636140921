// The annotated condition string: canonical text with a glyph on every term and live values in brackets.
import type { CompiledCondition, CompiledNode } from "./compile.js";
import { formatRemaining } from "./duration.js";
import { needsParens } from "./format.js";
import type { ConditionState } from "./state.js";
import { GLYPHS, idleBase } from "./truth.js";

/** A value as JSON for its bracket; bigints (msgpack int64) print as their digits rather than throwing. */
function jsonText(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  try {
    return JSON.stringify(value) ?? "unset";
  } catch {
    return "unset";
  }
}

class Annotator {
  constructor(
    private readonly compiled: CompiledCondition,
    private readonly state: ConditionState,
    private readonly at: number,
  ) {}

  node(index: number): string {
    const node = this.nodeAt(index);
    switch (node.kind) {
      case "and":
      case "or":
        return node.children
          .map((child) => (needsParens(node.kind, this.kindOf(child)) ? `(${this.node(child)})` : this.node(child)))
          .join(node.kind === "and" ? " AND " : " OR ");
      case "not": {
        // NOT over a term forms one term: one glyph before the whole chain (`~NOT escalated`).
        let text = this.glyph(index);
        let base = index;
        let baseNode = node;
        while (baseNode.kind === "not") {
          text += "NOT ";
          base = baseNode.children[0] ?? 0;
          baseNode = this.nodeAt(base);
        }
        if (baseNode.kind === "and" || baseNode.kind === "or") return `${text}(${this.node(base)})`;
        if (baseNode.kind === "always" || baseNode.kind === "eventually") return text + this.temporal(baseNode);
        return text + baseNode.text + this.bracket(baseNode);
      }
      case "always":
      case "eventually":
        return this.glyph(index) + this.temporal(node);
      default:
        return this.glyph(index) + node.text + this.bracket(node);
    }
  }

  private temporal(node: CompiledNode): string {
    return `${node.kind === "always" ? "G" : "F"}(${this.node(node.children[0] ?? 0)})`;
  }

  private bracket(node: CompiledNode): string {
    switch (node.kind) {
      case "count":
        return `[${this.state.counts[node.countSlot] ?? 0}]`;
      case "compare":
      case "match": {
        const fact = this.state.facts[node.factSlot];
        return fact == null ? "[unset]" : `[${jsonText(fact[0])}]`;
      }
      case "idle":
        return `[${formatRemaining(idleBase(this.state) + node.bound - this.at)}]`;
      default:
        return "";
    }
  }

  private glyph(index: number): string {
    return GLYPHS[this.compiled.values[index] ?? 0] ?? "";
  }

  private kindOf(index: number): CompiledNode["kind"] {
    return this.nodeAt(index).kind;
  }

  private nodeAt(index: number): CompiledNode {
    const node = this.compiled.nodes[index];
    if (node === undefined) throw new RangeError(`no node ${index}`);
    return node;
  }
}

/** Annotates from compiled.values, which computeTruth must have just filled for the same state and instant. */
export function annotateComputed(compiled: CompiledCondition, state: ConditionState, at: number): string {
  return new Annotator(compiled, state, at).node(compiled.root);
}
