// Escaping in the dashboard's HTML templates, and the annotated condition's glyph spans.
import { describe, expect, it } from "vitest";
import { annotatedCondition } from "./annotated-condition.js";
import { html, raw } from "./html.js";

const textOf = (markup: string): string =>
  markup
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

describe("html", () => {
  it("escapes every interpolated value except Html, arrays included", () => {
    const evil = `"><script>alert('x')</script>&`;
    expect(html`<p title="${evil}">${evil}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
    expect(html`<ul>${["<a>", html`<li>ok</li>`]}</ul>`.text).toBe("<ul>&lt;a&gt;<li>ok</li></ul>");
    expect(html`${null}${undefined}${false}${0}${raw("<br>")}`.text).toBe("0<br>");
  });
});

describe("annotatedCondition", () => {
  it("wraps each glyph in a styled span and keeps the text exactly", () => {
    const text = "✓F(~review:score>=4[5]) AND ~NOT (✗a AND ✗b) AND ✗IDLE(2s)[0s]";
    const markup = annotatedCondition(text).text;
    expect(textOf(markup)).toBe(text);
    expect(markup.match(/class="glyph-true"/g)).toHaveLength(1);
    expect(markup.match(/class="glyph-pending"/g)).toHaveLength(2);
    expect(markup.match(/class="glyph-false"/g)).toHaveLength(3);
  });

  it("leaves glyph characters inside string literals alone", () => {
    const text = '✗status=="~✓ \\" ✗"[unset] AND ~x';
    const markup = annotatedCondition(text).text;
    expect(textOf(markup)).toBe(text);
    expect(markup.match(/<span/g)).toHaveLength(2);
  });
});
