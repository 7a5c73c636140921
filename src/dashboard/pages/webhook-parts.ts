// What the webhook pages share: their paths, the notices a redirect names, the "no such endpoint or message"
// answers, the badges and the one-time secret box, and the confirmation page of a destructive action.
import type { WebhookEndpoint, WebhookEventType, WebhookMessage } from "../../client/wire-types.js";
import { refusedWith } from "../api-answers.js";
import type { PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { BASE, csrfField, layout } from "../layout.js";
import { page, type WebResponse } from "../web.js";

export const LIST = `${BASE}/webhooks`;

export const endpointPath = (id: string): string => `${LIST}/${encodeURIComponent(id)}`;
export const messagePath = (id: string, messageId: string): string =>
  `${endpointPath(id)}/messages/${encodeURIComponent(messageId)}`;

/** Notices named in a redirect's query by a word, so no link can put arbitrary text on the page. */
export const NOTICES: Record<string, string> = {
  enabled: "Endpoint enabled: its queued messages go out again.",
  disabled: "Endpoint disabled: it gets no new messages, and queued ones wait until it is enabled again.",
  deleted: "Endpoint deleted, with its queued messages.",
  resent: "Message queued again: it goes out with the same webhook-id and a fresh retry schedule.",
};

export function notFound(ctx: PageContext, what: string): WebResponse {
  return page(
    404,
    layout(
      ctx.viewer,
      "/webhooks",
      `No such ${what}`,
      html`<p>There is no such ${what}.</p><p><a href="${LIST}">All webhook endpoints</a></p>`,
    ),
  );
}

function isMissing(error: unknown): boolean {
  return refusedWith(error, "WEBHOOK_ENDPOINT_NOT_FOUND", "WEBHOOK_MESSAGE_NOT_FOUND");
}

/**
 * The API call's answer, or undefined when the endpoint or message does not exist for this account (the
 * API answers another account's ids exactly as unknown ones).
 */
export async function unlessMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Whether the call found its endpoint or message (for answers without a body). */
export async function found(call: Promise<unknown>): Promise<boolean> {
  try {
    await call;
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

export function eventTypes(types: readonly WebhookEventType[] | null): Html {
  return types === null ? html`all` : html`${types.map((type, i) => html`${i > 0 ? ", " : ""}<code>${type}</code>`)}`;
}

export function enabledBadge(enabled: boolean): Html {
  return enabled
    ? html`<span class="status status-CONFIRMED">enabled</span>`
    : html`<span class="status status-FAILED">disabled</span>`;
}

const MESSAGE_STATUS_CLASS: Record<WebhookMessage["status"], string> = {
  pending: "OPEN",
  delivered: "CONFIRMED",
  failed: "FAILED",
};

export function messageStatus(status: WebhookMessage["status"]): Html {
  return html`<span class="status status-${MESSAGE_STATUS_CLASS[status]}">${status}</span>`;
}

/** The signing secret, shown on the page that made it and nowhere else in the dashboard. */
export function secretBox(secret: string, why: string): Html {
  return html`<div class="notice ok" role="status">
  <p>${why} <strong>Copy it now: this page is the only one that shows it.</strong> Receivers verify signatures with it (see the Standard Webhooks libraries).</p>
  <div class="token"><code data-testid="webhook-secret" id="webhook-secret">${secret}</code><button type="button" data-copy="webhook-secret">Copy</button></div>
</div>`;
}

/** A confirmation page for a destructive action; the action itself is the POST it submits. */
export function confirmPage(
  ctx: PageContext,
  endpoint: WebhookEndpoint,
  title: string,
  warning: Html,
  action: string,
  button: string,
): WebResponse {
  const content = html`<p>Endpoint <code class="url">${endpoint.url}</code></p>
<p>${warning}</p>
<form method="post" action="${endpointPath(endpoint.id)}/${action}">
  ${csrfField(ctx.viewer)}
  <button type="submit" class="danger">${button}</button>
  <a href="${endpointPath(endpoint.id)}">Cancel</a>
</form>`;
  return page(200, layout(ctx.viewer, "/webhooks", title, content));
}
