// One webhook message's page: its attempts with each receiver's answer shown only as text, and "Resend".
import type { WebhookAttempt } from "../../client/wire-types.js";
import type { PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { csrfField, layout, notice } from "../layout.js";
import { page, redirect, type WebResponse } from "../web.js";
import { endpointPath, found, messagePath, notFound, NOTICES, unlessMissing } from "./webhook-parts.js";

function attemptResult(attempt: WebhookAttempt): Html {
  if (attempt.status_code !== null) {
    const ok = attempt.status_code >= 200 && attempt.status_code < 300;
    return html`<span class="status status-${ok ? "CONFIRMED" : "FAILED"}">HTTP ${attempt.status_code}</span>`;
  }
  return html`<span class="status status-FAILED">${attempt.error ?? "error"}</span>`;
}

export async function showMessage(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const messageId = ctx.params.message_id!;
  const endpoint = await unlessMissing(ctx.client.webhooks.get(id));
  if (!endpoint) return notFound(ctx, "webhook endpoint");
  const answer = await unlessMissing(ctx.client.webhooks.attempts(id, messageId));
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

export async function resend(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  const messageId = ctx.params.message_id!;
  const resent = await found(ctx.client.webhooks.resend(id, messageId));
  return resent ? redirect(`${messagePath(id, messageId)}?notice=resent`) : notFound(ctx, "webhook message");
}
