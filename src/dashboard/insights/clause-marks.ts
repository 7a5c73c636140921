// One clause marked in its condition's text: the clause ids name leaves left to right, so the n-th leaf
// is found by searching each leaf's text from where the one before it ended (a repeated text is no trap).
import { html, type Html } from "../html.js";

export interface ConditionClause {
  id: string;
  text: string;
}

/** The condition with clause `id` in a <mark>, or undefined when the condition has no such clause. */
export function markClause(condition: string, clauses: readonly ConditionClause[], id: string): Html | undefined {
  let from = 0;
  for (const clause of clauses) {
    const at = condition.indexOf(clause.text, from);
    if (at < 0) return undefined;
    if (clause.id === id) {
      const end = at + clause.text.length;
      return html`${condition.slice(0, at)}<mark>${condition.slice(at, end)}</mark>${condition.slice(end)}`;
    }
    from = at + clause.text.length;
  }
  return undefined;
}
