// One webhook endpoint's page: its facts, the enable, rotate and delete actions, and its messages paged with
// the API's cursors.
import type { ListPage } from "../../client/paging.js";
import type { WebhookEndpoint, WebhookMessage } from "../../client/wire-types.js";
import { given, refusedCursor } from "../api-answers.js";
import type { PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { csrfField, layout } from "../layout.js";
import { page, type WebResponse } from "../web.js";
import { noSuchPage, pager } from "./record-pages.js";
import { enabledBadge, endpointPath, eventTypes, LIST, messagePath, messageStatus } from "./webhook-parts.js";

function messageRows(endpoint: WebhookEndpoint, messages: readonly WebhookMessage[]): Html[] {
  return messages.map(
    (message) => html`<tr>
  <td><a href="${messagePath(endpoint.id, message.id)}"><code>${message.id}</code></a></td>
  <td><code>${message.event_type}</code></td>
  <td>${messageStatus(message.status)}</td>
  <td>${message.attempts}</td>
  <td>${message.created_at}</td>
  <td>${message.next_attempt_at ?? ""}</td>
</tr>`,
  );
}

/** The endpoint's page with `top` above its facts (a notice, or a secret just made). */
export async function endpointPage(ctx: PageContext, endpoint: WebhookEndpoint, top: Html): Promise<WebResponse> {
  const path = endpointPath(endpoint.id);
  let answer: ListPage<"messages", WebhookMessage>;
  try {
    answer = await ctx.client.webhooks.messages(endpoint.id, { cursor: given(ctx.req.query, "cursor") });
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, "/webhooks", path);
    throw error;
  }
  const rows = messageRows(endpoint, answer.messages);
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
