// The frame of every dashboard page: head (one stylesheet, one script, on chart pages the charts' hover
// script, all from this server), the navigation, the account and the "Sign out" button, and form fields
// that show their error beside them.
import { html, type Html, type HtmlValue } from "./html.js";

export const BASE = "/dashboard";

export interface Viewer {
  email: string;
  accountName: string;
  csrf: string;
}

const NAV: readonly [string, string][] = [
  ["", "Home"],
  ["/outcomes", "Outcomes"],
  ["/tasks", "Tasks"],
  ["/agents", "Agents"],
  ["/customers", "Customers"],
  ["/rate-cards", "Rate cards"],
  ["/dead-letters", "Dead letters"],
  ["/charges", "Charges"],
  ["/webhooks", "Webhooks"],
  ["/otlp", "OTLP mapping"],
  ["/token", "API token"],
];

/** The hidden field every state-changing form of a session carries. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrf}">`;
}

export interface PageOptions {
  /** The page draws charts: load their hover script too. */
  charts?: boolean;
}

export function document(title: string, body: Html, options: PageOptions = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Verdict</title>
<link rel="stylesheet" href="${BASE}/static/dashboard.css">
<script src="${BASE}/static/dashboard.js" defer></script>
${
  options.charts
    ? html`<script src="${BASE}/static/charts.js" defer></script>
`
    : ""
}</head>
<body>
${body}
</body>
</html>
`.text;
}

/** A signed-in page: navigation, the page's heading and content. */
export function layout(
  viewer: Viewer,
  current: string,
  title: string,
  content: HtmlValue,
  options: PageOptions = {},
): string {
  const links = NAV.map(
    ([path, label]) =>
      html`<li><a href="${BASE}${path}"${current === path ? html` aria-current="page"` : ""}>${label}</a></li>`,
  );
  return document(
    title,
    html`<a class="skip" href="#main">Skip to content</a>
<header>
  <strong class="brand">Verdict</strong>
  <nav aria-label="Dashboard"><ul>${links}</ul></nav>
  <form method="post" action="${BASE}/sign-out" class="sign-out">
    <span>${viewer.email} · ${viewer.accountName}</span>
    ${csrfField(viewer)}
    <button type="submit">Sign out</button>
  </form>
</header>
<main id="main">
<h1>${title}</h1>
${content}
</main>`,
    options,
  );
}

/** A page for visitors without a session (sign in, sign up). */
export function publicLayout(title: string, content: HtmlValue): string {
  return document(title, html`<main id="main" class="narrow"><h1>${title}</h1>${content}</main>`);
}

export interface FieldOptions {
  type?: string;
  error?: string | undefined;
  hint?: string;
  multiline?: boolean;
  autocomplete?: string;
  required?: boolean;
  /** Extra data-* attributes for the script (the condition check). */
  data?: Record<string, string>;
  /** Choices: renders a select. */
  choices?: readonly string[];
  readonly?: boolean;
  /** Shown under the field (the condition's canonical text). */
  after?: Html;
}

/** A labelled input whose error (if any) sits right under it and is announced with it. */
export function field(label: string, name: string, value: string, options: FieldOptions = {}): Html {
  const id = `field-${name}`;
  const described = [options.hint ? `${id}-hint` : "", `${id}-error`].filter(Boolean).join(" ");
  const data = Object.entries(options.data ?? {}).map(([key, v]) => html` data-${key}="${v}"`);
  const common = html`id="${id}" name="${name}" aria-describedby="${described}"${options.error ? html` aria-invalid="true"` : ""}${
    options.required ? html` required` : ""
  }${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""}${data}`;
  const input = options.choices
    ? html`<select ${common}>${options.choices.map((choice) => html`<option value="${choice}"${choice === value ? html` selected` : ""}>${choice === "" ? "Any" : choice}</option>`)}</select>`
    : options.multiline
      ? html`<textarea ${common} rows="3" spellcheck="false">${value}</textarea>`
      : html`<input ${common} type="${options.type ?? "text"}" value="${value}"${options.readonly ? html` readonly` : ""}>`;
  return html`<div class="field">
  <label for="${id}">${label}</label>
  ${input}
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ""}
  <p class="error" id="${id}-error" role="status">${options.error ?? ""}</p>
  ${options.after ?? ""}
</div>`;
}

/** A message at the top of a form (for errors that belong to no one field). */
export function notice(text: string | undefined, kind: "error" | "ok" = "error"): Html {
  return text ? html`<p class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}">${text}</p>` : html``;
}
