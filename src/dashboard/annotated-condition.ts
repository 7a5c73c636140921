// The annotated condition as HTML: each glyph (✓ met, ✗ not met, ~ not decided yet) in its own styled span,
// the text itself unchanged, so the element's text equals the API's `condition`.
import { html, type Html } from "./html.js";

const GLYPHS: Record<string, { className: string; title: string }> = {
  "✓": { className: "glyph-true", title: "met" },
  "✗": { className: "glyph-false", title: "not met" },
  "~": { className: "glyph-pending", title: "not decided yet" },
};

/** Walks the text once, skipping JSON string literals, where a glyph character is just a character. */
export function annotatedCondition(text: string): Html {
  const parts: Html[] = [];
  let plain = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      plain += c;
      if (c === "\\" && i + 1 < text.length) plain += text[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    const glyph = GLYPHS[c];
    if (!glyph) {
      plain += c;
      continue;
    }
    parts.push(html`${plain}<span class="${glyph.className}" title="${glyph.title}">${c}</span>`);
    plain = "";
  }
  parts.push(html`${plain}`);
  return html`${parts}`;
}
