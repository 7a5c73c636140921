// Webhooks: the account's endpoints (create with the secret shown once, enable or disable, rotate the
// secret, delete), each endpoint's messages, and each message's attempts with "Resend". Receivers' answers
// and the URLs people type are hostile text: everything goes through `html` and response bodies are only
// ever shown as text in <pre>, never as markup or links.
import type { ListPage } from "../../client/paging.js";
import type { WebhookEndpoint, WebhookEndpointCreated, WebhookEventType } from "../../client/wire-types.js";
import { WEBHOOK_EVENT_TYPES } from "../../records/webhook-endpoint.js";
import { given, refusedCursor } from "../api-answers.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { fieldErrors, type FieldErrors } from "../field-errors.js";
import { html } from "../html.js";
import { csrfField, field, layout, notice } from "../layout.js";
import { page, redirect, type WebResponse } from "../web.js";
import { noSuchPage, pager } from "./record-pages.js";
import { endpointPage } from "./webhook-endpoint.js";
import { resend, showMessage } from "./webhook-messages.js";
import {
  confirmPage,
  enabledBadge,
  endpointPath,
  eventTypes,
  found,
  LIST,
  notFound,
  NOTICES,
  secretBox,
  unlessMissing,
} from "./webhook-parts.js";

async function listPage(ctx: PageContext): Promise<WebResponse> {
  let answer: ListPage<"webhook_endpoints", WebhookEndpoint>;
  try {
    answer = await ctx.client.webhooks.list({ cursor: given(ctx.req.query, "cursor") });
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, "/webhooks", LIST);
    throw error;
  }
  const rows = answer.webhook_endpoints.map(
    (endpoint) => html`<tr>
  <td class="url-cell"><a href="${endpointPath(endpoint.id)}" aria-label="Endpoint ${endpoint.url}"><code class="url">${endpoint.url}</code></a></td>
  <td>${eventTypes(endpoint.event_types)}</td>
  <td>${enabledBadge(endpoint.enabled)}</td>
  <td>${endpoint.description ?? ""}</td>
  <td class="nowrap">${endpoint.created_at}</td>
</tr>`,
  );
  const content = html`${notice(NOTICES[ctx.req.query.get("notice") ?? ""], "ok")}
<p>Verdict sends a signed POST to each endpoint when an outcome is confirmed or failed, a dead letter is set aside or a charge is made (Standard Webhooks).</p>
<p><a class="button" href="${LIST}/new">New endpoint</a></p>
${
  rows.length === 0
    ? html`<p>No webhook endpoints yet.</p>`
    : html`<table aria-label="Webhook endpoints"><thead><tr><th scope="col">URL</th><th scope="col">Event types</th><th scope="col">State</th><th scope="col">Description</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`
}
${pager(ctx, answer.next_cursor)}`;
  return page(200, layout(ctx.viewer, "/webhooks", "Webhooks", content));
}

interface EndpointForm {
  url: string;
  eventTypes: string[];
  description: string;
}

function formPage(ctx: PageContext, status: number, values: EndpointForm, errors: FieldErrors = {}): WebResponse {
  const boxes = WEBHOOK_EVENT_TYPES.map(
    (type) =>
      html`<label class="check"><input type="checkbox" name="event_types" value="${type}"${values.eventTypes.includes(type) ? html` checked` : ""}> <code>${type}</code></label>`,
  );
  const content = html`${notice(errors._form)}
<form method="post" action="${LIST}/new" novalidate>
  ${csrfField(ctx.viewer)}
  ${field("URL", "url", values.url, { type: "url", required: true, error: errors.url, hint: "An http or https URL that answers 2xx within 15 seconds." })}
  <fieldset class="field" aria-describedby="field-event_types-hint field-event_types-error">
    <legend>Event types</legend>
    ${boxes}
    <p class="hint" id="field-event_types-hint">Leave all unchecked to receive every event type, including ones added later.</p>
    <p class="error" id="field-event_types-error" role="status">${errors.event_types ?? ""}</p>
  </fieldset>
  ${field("Description", "description", values.description, { error: errors.description, hint: "What this endpoint is for (optional)." })}
  <div class="actions"><button type="submit">Create endpoint</button> <a href="${LIST}">Cancel</a></div>
</form>`;
  return page(status, layout(ctx.viewer, "/webhooks", "New webhook endpoint", content));
}

/** The boxes ticked, as event types; undefined when one is not a type the form offers. */
function knownTypes(ticked: readonly string[]): WebhookEventType[] | undefined {
  const types: WebhookEventType[] = [];
  for (const text of ticked) {
    const type = WEBHOOK_EVENT_TYPES.find((known) => known === text);
    if (type === undefined) return undefined;
    types.push(type);
  }
  return types;
}

async function create(ctx: PageContext): Promise<WebResponse> {
  const form = ctx.req.form;
  const values: EndpointForm = {
    url: (form.get("url") ?? "").trim(),
    eventTypes: form.getAll("event_types"),
    description: (form.get("description") ?? "").trim(),
  };
  if (values.url === "") return formPage(ctx, 400, values, { url: "Enter the URL to send messages to." });
  const types = knownTypes(values.eventTypes);
  if (types === undefined) return formPage(ctx, 400, values, { event_types: "Choose from the event types listed." });
  let created: WebhookEndpointCreated;
  try {
    created = await ctx.client.webhooks.create({
      url: values.url,
      event_types: types.length === 0 ? null : types,
      description: values.description === "" ? null : values.description,
    });
  } catch (error) {
    const errors = fieldErrors(error);
    if (!errors) throw error;
    return formPage(ctx, 400, values, errors);
  }
  // Answered here rather than redirected: the secret must not travel in a URL or be stored for a later page.
  return endpointPage(ctx, created, secretBox(created.secret, "Endpoint created. This is its signing secret."));
}

async function showEndpoint(ctx: PageContext): Promise<WebResponse> {
  const endpoint = await unlessMissing(ctx.client.webhooks.get(ctx.params.id!));
  return endpoint
    ? endpointPage(ctx, endpoint, notice(NOTICES[ctx.req.query.get("notice") ?? ""], "ok"))
    : notFound(ctx, "webhook endpoint");
}

async function setEnabled(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const enabled = ctx.req.form.get("enabled") === "true";
  const updated = await found(ctx.client.webhooks.patch(id, { enabled }));
  return updated
    ? redirect(`${endpointPath(id)}?notice=${enabled ? "enabled" : "disabled"}`)
    : notFound(ctx, "webhook endpoint");
}

async function confirmDelete(ctx: PageContext): Promise<WebResponse> {
  const endpoint = await unlessMissing(ctx.client.webhooks.get(ctx.params.id!));
  if (!endpoint) return notFound(ctx, "webhook endpoint");
  return confirmPage(
    ctx,
    endpoint,
    "Delete endpoint",
    html`<strong>It gets no more messages and its queued messages are dropped.</strong> This cannot be undone.`,
    "delete",
    "Yes, delete this endpoint",
  );
}

async function remove(ctx: PageContext): Promise<WebResponse> {
  // DELETE answers 204 without a body, so success is "did not throw", not a value.
  const deleted = await found(ctx.client.webhooks.delete(ctx.params.id!));
  return deleted ? redirect(`${LIST}?notice=deleted`) : notFound(ctx, "webhook endpoint");
}

async function confirmRotate(ctx: PageContext): Promise<WebResponse> {
  const endpoint = await unlessMissing(ctx.client.webhooks.get(ctx.params.id!));
  if (!endpoint) return notFound(ctx, "webhook endpoint");
  return confirmPage(
    ctx,
    endpoint,
    "Rotate secret",
    html`A new secret signs every message from now on. The current one keeps signing alongside it for 24 hours (both signatures are sent), so receivers can switch in that time.`,
    "rotate-secret",
    "Yes, make a new secret",
  );
}

async function rotate(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const rotated = await unlessMissing(ctx.client.webhooks.rotateSecret(id));
  const endpoint = rotated && (await unlessMissing(ctx.client.webhooks.get(id)));
  if (!rotated || !endpoint) return notFound(ctx, "webhook endpoint");
  return endpointPage(
    ctx,
    endpoint,
    secretBox(
      rotated.secret,
      `New secret made; the previous one keeps signing until ${rotated.previous_secret_expires_at}.`,
    ),
  );
}

export const webhookRoutes: DashboardRoute[] = [
  { method: "GET", path: "/webhooks", handle: listPage },
  {
    method: "GET",
    path: "/webhooks/new",
    handle: (ctx) => formPage(ctx, 200, { url: "", eventTypes: [], description: "" }),
  },
  { method: "POST", path: "/webhooks/new", handle: create },
  { method: "GET", path: "/webhooks/:id", handle: showEndpoint },
  { method: "POST", path: "/webhooks/:id/enabled", handle: setEnabled },
  { method: "GET", path: "/webhooks/:id/delete", handle: confirmDelete },
  { method: "POST", path: "/webhooks/:id/delete", handle: remove },
  { method: "GET", path: "/webhooks/:id/rotate-secret", handle: confirmRotate },
  { method: "POST", path: "/webhooks/:id/rotate-secret", handle: rotate },
  { method: "GET", path: "/webhooks/:id/messages/:message_id", handle: showMessage },
  { method: "POST", path: "/webhooks/:id/messages/:message_id/resend", handle: resend },
];
