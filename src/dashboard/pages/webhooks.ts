// Webhooks: the account's endpoints (create with the secret shown once, enable or disable, rotate the
// secret, delete), each endpoint's messages, and each message's attempts with "Resend". Receivers' answers
// and the URLs people type are hostile text: everything goes through `html` and response bodies are only
// ever shown as text in <pre>, never as markup or links.
import { ApiError } from "../../errors/api-error.js";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../../records/webhook-endpoint.js";
import type { WebhookEndpointView } from "../../webhooks/endpoint-store.js";
import type { AttemptView, MessageView } from "../../webhooks/message.js";
import { segment } from "../api-client.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { fieldErrors, type FieldErrors } from "../field-errors.js";
import { html, type Html } from "../html.js";
import { BASE, csrfField, field, layout, notice } from "../layout.js";
import { page, redirect, type WebResponse } from "../web.js";
import { noSuchPage, pager, refusedCursor } from "./record-pages.js";

const LIST = `${BASE}/webhooks`;
const API = "/v1/webhook-endpoints";

const endpointPath = (id: string): string => `${LIST}/${segment(id)}`;
const messagePath = (id: string, messageId: string): string => `${endpointPath(id)}/messages/${segment(messageId)}`;
const apiEndpoint = (id: string): string => `${API}/${segment(id)}`;

/** Notices named in a redirect's query by a word, so no link can put arbitrary text on the page. */
const NOTICES: Record<string, string> = {
  enabled: "Endpoint enabled: its queued messages go out again.",
  disabled: "Endpoint disabled: it gets no new messages, and queued ones wait until it is enabled again.",
  deleted: "Endpoint deleted, with its queued messages.",
  resent: "Message queued again: it goes out with the same webhook-id and a fresh retry schedule.",
};

function notFound(ctx: PageContext, what: string): WebResponse {
  return page(404, layout(ctx.viewer, "/webhooks", `No such ${what}`, html`<p>There is no such ${what}.</p><p><a href="${LIST}">All webhook endpoints</a></p>`));
}

function isMissing(error: unknown): boolean {
  return error instanceof ApiError && (error.code === "WEBHOOK_ENDPOINT_NOT_FOUND" || error.code === "WEBHOOK_MESSAGE_NOT_FOUND");
}

/**
 * The API call's answer, or undefined when the endpoint or message does not exist for this account (the
 * API answers another account's ids exactly as unknown ones).
 */
async function unlessMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Whether the call found its endpoint or message (for answers without a body). */
async function found(call: Promise<unknown>): Promise<boolean> {
  try {
    await call;
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

function eventTypes(types: readonly WebhookEventType[] | null): Html {
  return types === null ? html`all` : html`${types.map((type, i) => html`${i > 0 ? ", " : ""}<code>${type}</code>`)}`;
}

function enabledBadge(enabled: boolean): Html {
  return enabled ? html`<span class="status status-CONFIRMED">enabled</span>` : html`<span class="status status-FAILED">disabled</span>`;
}

const MESSAGE_STATUS_CLASS: Record<MessageView["status"], string> = { pending: "OPEN", delivered: "CONFIRMED", failed: "FAILED" };

function messageStatus(status: MessageView["status"]): Html {
  return html`<span class="status status-${MESSAGE_STATUS_CLASS[status]}">${status}</span>`;
}

/** The signing secret, shown on the page that made it and nowhere else in the dashboard. */
function secretBox(secret: string, why: string): Html {
  return html`<div class="notice ok" role="status">
  <p>${why} <strong>Copy it now: this page is the only one that shows it.</strong> Receivers verify signatures with it (see the Standard Webhooks libraries).</p>
  <div class="token"><code data-testid="webhook-secret" id="webhook-secret">${secret}</code><button type="button" data-copy="webhook-secret">Copy</button></div>
</div>`;
}

async function listPage(ctx: PageContext): Promise<WebResponse> {
  let answer: { webhook_endpoints: WebhookEndpointView[]; next_cursor: string | null };
  try {
    answer = await ctx.api("GET", API, { query: { cursor: ctx.req.query.get("cursor") ?? undefined } });
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
    (type) => html`<label class="check"><input type="checkbox" name="event_types" value="${type}"${values.eventTypes.includes(type) ? html` checked` : ""}> <code>${type}</code></label>`,
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

async function create(ctx: PageContext): Promise<WebResponse> {
  const form = ctx.req.form;
  const values: EndpointForm = { url: (form.get("url") ?? "").trim(), eventTypes: form.getAll("event_types"), description: (form.get("description") ?? "").trim() };
  if (values.url === "") return formPage(ctx, 400, values, { url: "Enter the URL to send messages to." });
  let created: WebhookEndpointView & { secret: string };
  try {
    created = await ctx.api("POST", API, {
      body: { url: values.url, event_types: values.eventTypes.length === 0 ? null : values.eventTypes, description: values.description === "" ? null : values.description },
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
  const endpoint = await unlessMissing(ctx.api<WebhookEndpointView>("GET", apiEndpoint(ctx.params.id!)));
  return endpoint ? endpointPage(ctx, endpoint, notice(NOTICES[ctx.req.query.get("notice") ?? ""], "ok")) : notFound(ctx, "webhook endpoint");
}

async function endpointPage(ctx: PageContext, endpoint: WebhookEndpointView, top: Html): Promise<WebResponse> {
  const path = endpointPath(endpoint.id);
  let answer: { messages: MessageView[]; next_cursor: string | null };
  try {
    answer = await ctx.api("GET", `${apiEndpoint(endpoint.id)}/messages`, { query: { cursor: ctx.req.query.get("cursor") ?? undefined } });
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, "/webhooks", path);
    throw error;
  }
  const rows = answer.messages.map(
    (message) => html`<tr>
  <td><a href="${messagePath(endpoint.id, message.id)}"><code>${message.id}</code></a></td>
  <td><code>${message.event_type}</code></td>
  <td>${messageStatus(message.status)}</td>
  <td>${message.attempts}</td>
  <td>${message.created_at}</td>
  <td>${message.next_attempt_at ?? ""}</td>
</tr>`,
  );
  const content = html`${top}
<dl class="facts">
  <dt>URL</dt><dd><code class="url" data-testid="endpoint-url">${endpoint.url}</code></dd>
  <dt>Event types</dt><dd>${eventTypes(endpoint.event_types)}</dd>
  <dt>State</dt><dd data-testid="endpoint-state">${enabledBadge(endpoint.enabled)}</dd>
  <dt>Description</dt><dd data-testid="endpoint-description">${endpoint.description ?? "none"}</dd>
  <dt>Created</dt><dd>${endpoint.created_at}</dd>
  <dt>ID</dt><dd><code>${endpoint.id}</code></dd>
</dl>
<div class="actions">
  <form method="post" action="${path}/enabled" class="inline">${csrfField(ctx.viewer)}<input type="hidden" name="enabled" value="${endpoint.enabled ? "false" : "true"}"><button type="submit" class="secondary">${endpoint.enabled ? "Disable" : "Enable"}</button></form>
  <a class="button secondary" href="${path}/rotate-secret">Rotate secret</a>
  <a class="button danger" href="${path}/delete">Delete</a>
</div>
<h2>Messages</h2>
${
  rows.length === 0
    ? html`<p>No messages yet. Events after the endpoint was created are sent here.</p>`
    : html`<table aria-label="Messages"><thead><tr><th scope="col">Message</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Created</th><th scope="col">Next attempt</th></tr></thead><tbody>${rows}</tbody></table>`
}
${pager(ctx, answer.next_cursor)}
<p><a href="${LIST}">All webhook endpoints</a></p>`;
  return page(200, layout(ctx.viewer, "/webhooks", "Webhook endpoint", content));
}

async function setEnabled(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const enabled = ctx.req.form.get("enabled") === "true";
  const updated = await found(ctx.api("PATCH", apiEndpoint(id), { body: { enabled } }));
  return updated ? redirect(`${endpointPath(id)}?notice=${enabled ? "enabled" : "disabled"}`) : notFound(ctx, "webhook endpoint");
}

/** A confirmation page for a destructive action; the action itself is the POST it submits. */
function confirmPage(ctx: PageContext, endpoint: WebhookEndpointView, title: string, warning: Html, action: string, button: string): WebResponse {
  const content = html`<p>Endpoint <code class="url">${endpoint.url}</code></p>
<p>${warning}</p>
<form method="post" action="${endpointPath(endpoint.id)}/${action}">
  ${csrfField(ctx.viewer)}
  <button type="submit" class="danger">${button}</button>
  <a href="${endpointPath(endpoint.id)}">Cancel</a>
</form>`;
  return page(200, layout(ctx.viewer, "/webhooks", title, content));
}

async function confirmDelete(ctx: PageContext): Promise<WebResponse> {
  const endpoint = await unlessMissing(ctx.api<WebhookEndpointView>("GET", apiEndpoint(ctx.params.id!)));
  if (!endpoint) return notFound(ctx, "webhook endpoint");
  return confirmPage(ctx, endpoint, "Delete endpoint", html`<strong>It gets no more messages and its queued messages are dropped.</strong> This cannot be undone.`, "delete", "Yes, delete this endpoint");
}

async function remove(ctx: PageContext): Promise<WebResponse> {
  // DELETE answers 204 without a body, so success is "did not throw", not a value.
  const deleted = await found(ctx.api("DELETE", apiEndpoint(ctx.params.id!)));
  return deleted ? redirect(`${LIST}?notice=deleted`) : notFound(ctx, "webhook endpoint");
}

async function confirmRotate(ctx: PageContext): Promise<WebResponse> {
  const endpoint = await unlessMissing(ctx.api<WebhookEndpointView>("GET", apiEndpoint(ctx.params.id!)));
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
  const rotated = await unlessMissing(ctx.api<{ secret: string; previous_secret_expires_at: string }>("POST", `${apiEndpoint(id)}/rotate-secret`));
  const endpoint = rotated && (await unlessMissing(ctx.api<WebhookEndpointView>("GET", apiEndpoint(id))));
  if (!rotated || !endpoint) return notFound(ctx, "webhook endpoint");
  return endpointPage(ctx, endpoint, secretBox(rotated.secret, `New secret made; the previous one keeps signing until ${rotated.previous_secret_expires_at}.`));
}

function attemptResult(attempt: AttemptView): Html {
  if (attempt.status_code !== null) {
    const ok = attempt.status_code >= 200 && attempt.status_code < 300;
    return html`<span class="status status-${ok ? "CONFIRMED" : "FAILED"}">HTTP ${attempt.status_code}</span>`;
  }
  return html`<span class="status status-FAILED">${attempt.error ?? "error"}</span>`;
}

async function showMessage(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const messageId = ctx.params.message_id!;
  const endpoint = await unlessMissing(ctx.api<WebhookEndpointView>("GET", apiEndpoint(id)));
  if (!endpoint) return notFound(ctx, "webhook endpoint");
  const answer = await unlessMissing(ctx.api<{ attempts: AttemptView[] }>("GET", `${apiEndpoint(id)}/messages/${segment(messageId)}/attempts`));
  if (!answer) return notFound(ctx, "webhook message");
  const rows = answer.attempts.map(
    (attempt) => html`<tr>
  <td class="nowrap">${attempt.timestamp}</td>
  <td class="nowrap">${attemptResult(attempt)}</td>
  <td class="nowrap">${attempt.duration_ms} ms</td>
  <td><pre class="response">${attempt.response}</pre></td>
</tr>`,
  );
  const content = html`${notice(NOTICES[ctx.req.query.get("notice") ?? ""], "ok")}
<dl class="facts">
  <dt>Message</dt><dd><code>${messageId}</code> (the <code>webhook-id</code> header)</dd>
  <dt>Endpoint</dt><dd><a href="${endpointPath(id)}"><code class="url">${endpoint.url}</code></a></dd>
</dl>
<form method="post" action="${messagePath(id, messageId)}/resend">${csrfField(ctx.viewer)}<button type="submit">Resend</button></form>
<h2>Attempts</h2>
${
  rows.length === 0
    ? html`<p>No attempt yet.</p>`
    : html`<table aria-label="Attempts"><thead><tr><th scope="col">When</th><th scope="col">Result</th><th scope="col">Duration</th><th scope="col">Response (first KiB, as text)</th></tr></thead><tbody>${rows}</tbody></table>`
}`;
  return page(200, layout(ctx.viewer, "/webhooks", "Webhook message", content));
}

async function resend(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const messageId = ctx.params.message_id!;
  const resent = await found(ctx.api("POST", `${apiEndpoint(id)}/messages/${segment(messageId)}/resend`));
  return resent ? redirect(`${messagePath(id, messageId)}?notice=resent`) : notFound(ctx, "webhook message");
}

export const webhookRoutes: DashboardRoute[] = [
  { method: "GET", path: "/webhooks", handle: listPage },
  { method: "GET", path: "/webhooks/new", handle: (ctx) => formPage(ctx, 200, { url: "", eventTypes: [], description: "" }) },
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
