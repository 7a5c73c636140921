// The pages every configuration record kind shares (tasks, agents, customers, rate cards): a list paged
// with the API's cursors, a form to create or edit with errors beside each field, and delete; and the
// pager and "no such page" answer every list page uses.
import type { ListPage } from "../../client/paging.js";
import type { RecordRoutes, Routes } from "../../client/routes.js";
import { given, isNotFound, refusedCursor } from "../api-answers.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { fieldErrors, type FieldErrors } from "../field-errors.js";
import { html, type Html, type HtmlValue } from "../html.js";
import { BASE, csrfField, field, layout, notice } from "../layout.js";
import { page, redirect, type WebResponse } from "../web.js";

export interface FormField {
  /** Form field name; also the API body field unless the kind's `body` maps it. */
  name: string;
  label: string;
  required?: boolean;
  multiline?: boolean;
  choices?: readonly string[];
  hint?: string;
  /** A condition: checked as the person types; agents may read only `value`. */
  condition?: { valueOnly: boolean };
}

export interface RecordPages<T extends { key: string }, Body, Field extends string> {
  /** Dashboard path segment: "tasks", "rate-cards". */
  segment: string;
  /** The list field of the API's answer: "tasks", "rate_cards". */
  listField: Field;
  /** The kind's routes on the typed client. */
  routes(client: Routes): RecordRoutes<T, Body, ListPage<Field, T>>;
  singular: string;
  title: string;
  fields: readonly FormField[];
  columns: readonly { label: string; value(record: T): HtmlValue }[];
  /** The form's values of a stored record. */
  formValues(record: T): Record<string, string>;
  /** The API body of the form's values, or the errors found before asking the API. */
  body(values: Record<string, string>): { body: Body } | { errors: FieldErrors };
}

interface ItemPage<T> {
  items: T[];
  nextCursor: string | null;
}

const MAX_KEY = 512;

/** One kind's pages and the paths they link to, built once in recordPages. */
interface Kit<T extends { key: string }, Body, Field extends string> {
  kind: RecordPages<T, Body, Field>;
  listPath: string;
  recordPath: (key: string) => string;
  editPath: (key: string) => string;
}

export function recordPages<T extends { key: string }, Body, Field extends string>(
  kind: RecordPages<T, Body, Field>,
): DashboardRoute[] {
  const listPath = `${BASE}/${kind.segment}`;
  const recordPath = (key: string): string => `${listPath}/${encodeURIComponent(key)}`;
  // "/edit" keeps a record keyed "new" reachable: "/tasks/new" is the creation form.
  const editPath = (key: string): string => `${recordPath(key)}/edit`;
  const kit: Kit<T, Body, Field> = { kind, listPath, recordPath, editPath };

  return [
    { method: "GET", path: `/${kind.segment}`, handle: (ctx) => listPage(kit, ctx) },
    { method: "GET", path: `/${kind.segment}/new`, handle: (ctx) => formPage(kit, ctx, 200, undefined, {}) },
    {
      method: "POST",
      path: `/${kind.segment}/new`,
      handle: (ctx) => save(kit, ctx, (ctx.req.form.get("key") ?? "").trim(), formValues(kind, ctx), true),
    },
    {
      method: "GET",
      path: `/${kind.segment}/:key/edit`,
      async handle(ctx) {
        const key = ctx.params.key!;
        const record = await get(kit, ctx, key);
        return record ? formPage(kit, ctx, 200, key, kind.formValues(record)) : missing(kit, ctx, key);
      },
    },
    {
      method: "POST",
      path: `/${kind.segment}/:key/edit`,
      async handle(ctx) {
        const key = ctx.params.key!;
        return (await exists(kit, ctx, key))
          ? save(kit, ctx, key, formValues(kind, ctx), false)
          : missing(kit, ctx, key);
      },
    },
    {
      method: "POST",
      path: `/${kind.segment}/:key/delete`,
      async handle(ctx) {
        const key = ctx.params.key!;
        try {
          await kind.routes(ctx.client).delete(key);
        } catch (error) {
          if (isNotFound(error)) return missing(kit, ctx, key);
          throw error;
        }
        return redirect(`${listPath}?notice=deleted`);
      },
    },
  ];
}

async function list<T extends { key: string }, Body, Field extends string>(
  { kind }: Kit<T, Body, Field>,
  ctx: PageContext,
): Promise<ItemPage<T>> {
  const answer = await kind.routes(ctx.client).list({ cursor: given(ctx.req.query, "cursor") });
  return { items: answer[kind.listField], nextCursor: answer.next_cursor };
}

async function listPage<T extends { key: string }, Body, Field extends string>(
  kit: Kit<T, Body, Field>,
  ctx: PageContext,
): Promise<WebResponse> {
  const { kind, listPath, recordPath, editPath } = kit;
  let result: ItemPage<T>;
  try {
    result = await list(kit, ctx);
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, `/${kind.segment}`, listPath);
    throw error;
  }
  // Fixed words chosen by the code in the URL: a link can choose which, never what it says.
  const done = ctx.req.query.get("notice");
  const message =
    done === "saved"
      ? `The ${kind.singular} was saved.`
      : done === "deleted"
        ? `The ${kind.singular} was deleted.`
        : undefined;
  const rows = result.items.map(
    (record) => html`<tr>
  <td><a href="${editPath(record.key)}">${record.key}</a></td>
  ${kind.columns.map((column) => html`<td>${column.value(record)}</td>`)}
  <td><form method="post" action="${recordPath(record.key)}/delete" class="inline">${csrfField(ctx.viewer)}<button type="submit" class="secondary" aria-label="Delete ${kind.singular} ${record.key}">Delete</button></form></td>
</tr>`,
  );
  const content = html`${notice(message, "ok")}
<p><a class="button" href="${listPath}/new">New ${kind.singular}</a></p>
${
  rows.length === 0
    ? html`<p>No ${kind.title.toLowerCase()} yet.</p>`
    : html`<table>
<thead><tr><th scope="col">Key</th>${kind.columns.map((column) => html`<th scope="col">${column.label}</th>`)}<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${pager(ctx, result.nextCursor)}`;
  return page(200, layout(ctx.viewer, `/${kind.segment}`, kind.title, content));
}

function formPage<T extends { key: string }, Body, Field extends string>(
  { kind, listPath, editPath }: Kit<T, Body, Field>,
  ctx: PageContext,
  status: number,
  key: string | undefined,
  values: Record<string, string>,
  errors: FieldErrors = {},
): WebResponse {
  const fields: Html[] = kind.fields.map((f) =>
    field(f.label, f.name, values[f.name] ?? "", {
      error: errors[f.name],
      required: f.required ?? false,
      multiline: f.multiline ?? false,
      ...(f.choices ? { choices: f.choices } : {}),
      ...(f.hint ? { hint: f.hint } : {}),
      ...(f.condition
        ? {
            data: { "condition-check": `${BASE}/condition-check${f.condition.valueOnly ? "?value_only=1" : ""}` },
            after: html`<p class="canonical" id="field-${f.name}-canonical" aria-live="polite"></p>`,
          }
        : {}),
    }),
  );
  const title = key === undefined ? `New ${kind.singular}` : `Edit ${kind.singular} ${key}`;
  const content = html`${notice(errors._form)}
<form method="post" action="${key === undefined ? `${listPath}/new` : editPath(key)}" novalidate>
  ${csrfField(ctx.viewer)}
  ${field("Key", "key", key ?? values.key ?? "", { required: true, readonly: key !== undefined, error: errors.key, hint: key === undefined ? "The identifier used in the API. It cannot be changed later." : "" })}
  ${fields}
  <div class="actions"><button type="submit">Save ${kind.singular}</button> <a href="${listPath}">Cancel</a></div>
</form>`;
  return page(status, layout(ctx.viewer, `/${kind.segment}`, title, content));
}

function formValues<T extends { key: string }, Body, Field extends string>(
  kind: RecordPages<T, Body, Field>,
  ctx: PageContext,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const f of kind.fields) values[f.name] = ctx.req.form.get(f.name) ?? "";
  return values;
}

async function save<T extends { key: string }, Body, Field extends string>(
  kit: Kit<T, Body, Field>,
  ctx: PageContext,
  key: string,
  values: Record<string, string>,
  isNew: boolean,
): Promise<WebResponse> {
  const { kind } = kit;
  const errors: FieldErrors = {};
  if (key === "") errors.key = "Enter a key.";
  else if (key.length > MAX_KEY) errors.key = `Use at most ${MAX_KEY} characters.`;
  for (const f of kind.fields)
    if (f.required && values[f.name]!.trim() === "")
      errors[f.name] = `Enter ${f.label.toLowerCase().startsWith("a") ? "an" : "a"} ${f.label.toLowerCase()}.`;
  const built = kind.body(values);
  if ("errors" in built) for (const [name, message] of Object.entries(built.errors)) errors[name] ??= message;
  if (Object.keys(errors).length === 0 && isNew && (await exists(kit, ctx, key))) {
    errors.key = `A ${kind.singular} with this key already exists. Pick another key, or edit that ${kind.singular}.`;
  }
  if (Object.keys(errors).length > 0 || "errors" in built)
    return formPage(kit, ctx, 400, isNew ? undefined : key, { ...values, key }, errors);
  try {
    await kind.routes(ctx.client).put(key, built.body);
  } catch (error) {
    const found = fieldErrors(error);
    if (!found) throw error;
    return formPage(kit, ctx, 400, isNew ? undefined : key, { ...values, key }, found);
  }
  return redirect(`${kit.listPath}?notice=saved`);
}

async function exists<T extends { key: string }, Body, Field extends string>(
  kit: Kit<T, Body, Field>,
  ctx: PageContext,
  key: string,
): Promise<boolean> {
  return (await get(kit, ctx, key)) !== undefined;
}

async function get<T extends { key: string }, Body, Field extends string>(
  kit: Kit<T, Body, Field>,
  ctx: PageContext,
  key: string,
): Promise<T | undefined> {
  try {
    return await kit.kind.routes(ctx.client).get(key);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function missing<T extends { key: string }, Body, Field extends string>(
  { kind, listPath }: Kit<T, Body, Field>,
  ctx: PageContext,
  key: string,
): WebResponse {
  return page(
    404,
    layout(
      ctx.viewer,
      `/${kind.segment}`,
      `No such ${kind.singular}`,
      html`<p>There is no ${kind.singular} ${key}.</p><p><a href="${listPath}">All ${kind.title.toLowerCase()}</a></p>`,
    ),
  );
}

/** The 404 of a list page that cannot exist, one link away from the list's first page. */
export function noSuchPage(ctx: PageContext, nav: string, firstPage: string): WebResponse {
  return page(
    404,
    layout(
      ctx.viewer,
      nav,
      "No such page",
      html`<p>This list has no such page: the link was changed or cut short.</p><p><a href="${firstPage}">First page</a></p>`,
    ),
  );
}

/** "Next page" with the API's cursor; the first page is always one link away (cursors only go forward). */
export function pager(ctx: PageContext, nextCursor: string | null): Html {
  const query = new URLSearchParams(ctx.req.query);
  // A notice belongs to the change just made, not to the pages after it.
  query.delete("notice");
  const onFirst = !query.has("cursor");
  query.delete("cursor");
  const first = query.toString();
  const links: Html[] = [];
  if (!onFirst) links.push(html`<a href="?${first}">First page</a>`);
  if (nextCursor !== null) {
    query.set("cursor", nextCursor);
    links.push(html`<a href="?${query.toString()}" rel="next">Next page</a>`);
  }
  return links.length > 0 ? html`<nav class="pager" aria-label="Pages">${links}</nav>` : html``;
}
