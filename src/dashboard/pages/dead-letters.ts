// Dead letters: filter by code, each letter's code, message and event, and "Replay", which sends the event
// through its shard again (the API's replay: at most once per letter).
import type { ListPage } from "../../client/paging.js";
import type { DeadLetter } from "../../client/wire-types.js";
import { VerdictError } from "../../client/verdict-error.js";
import { given, refusedCursor, refusedWith } from "../api-answers.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { html } from "../html.js";
import { BASE, csrfField, field, layout, notice } from "../layout.js";
import { page, redirect, type WebResponse } from "../web.js";
import { noSuchPage, pager } from "./record-pages.js";

/** The codes a dead letter can carry (errors/codes.ts), offered as the filter's choices. */
const CODES = [
  "",
  "OUTCOME_NOT_FOUND",
  "OUTCOME_NOT_OPEN",
  "OUTCOME_IDENTITY_MISMATCH",
  "AGENT_NOT_FOUND",
  "CUSTOMER_NOT_FOUND",
  "RATE_CARD_NOT_FOUND",
  "RATE_CARD_ENTRY_NOT_FOUND",
  "OUTCOME_TOO_LARGE",
  "PROCESSING_FAILED",
] as const;

const LIST = `${BASE}/dead-letters`;

/** Named in the redirect's query by a word, so no link can put arbitrary text on the page. */
const REPLAY_FAILURES: Record<string, string> = {
  gone: "That dead letter was already replayed or does not exist.",
  queue:
    "The replay could not be queued (the service is busy or Redis is away). The letter is still here: try again in a moment.",
};

async function listPage(ctx: PageContext): Promise<WebResponse> {
  const code = ctx.req.query.get("code") ?? "";
  let answer: ListPage<"dead_letters", DeadLetter>;
  try {
    answer = await ctx.client.dlq.list({ code: code || undefined, cursor: given(ctx.req.query, "cursor") });
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, "/dead-letters", LIST);
    if (refusedWith(error, "VALIDATION_ERROR")) return redirect(LIST);
    throw error;
  }
  const replayed = ctx.req.query.get("replayed");
  const failed = REPLAY_FAILURES[ctx.req.query.get("failed") ?? ""];
  const rows = answer.dead_letters.map(
    (letter) => html`<tr>
  <td><code>${letter.code}</code></td>
  <td>${letter.message}</td>
  <td><a href="${BASE}/outcomes/${encodeURIComponent(letter.outcome_key)}">${letter.outcome_key}</a></td>
  <td><pre>${JSON.stringify(letter.event, null, 1)}</pre></td>
  <td>${letter.dead_lettered_at}<br>attempts: ${letter.attempts}</td>
  <td><form method="post" action="${LIST}/${encodeURIComponent(letter.id)}/replay">${csrfField(ctx.viewer)}<button type="submit" aria-label="Replay dead letter ${letter.id}">Replay</button></form></td>
</tr>`,
  );
  const content = html`${notice(replayed ? `Replayed: the event is back in its queue and will be applied again.` : undefined, "ok")}
${notice(failed ?? undefined)}
<form method="get" action="${LIST}" class="filters" role="search">
  ${field("Code", "code", code, { choices: CODES })}
  <button type="submit">Filter</button>
</form>
${
  rows.length === 0
    ? html`<p>No dead letters${code ? html` with code <code>${code}</code>` : ""}.</p>`
    : html`<table aria-label="Dead letters"><thead><tr><th scope="col">Code</th><th scope="col">Message</th><th scope="col">Outcome</th><th scope="col">Event</th><th scope="col">Set aside</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`
}
${pager(ctx, answer.next_cursor)}`;
  return page(200, layout(ctx.viewer, "/dead-letters", "Dead letters", content));
}

async function replay(ctx: PageContext): Promise<WebResponse> {
  const id = ctx.params.id!;
  try {
    await ctx.client.dlq.replay(id);
  } catch (error) {
    if (!(error instanceof VerdictError)) throw error;
    return redirect(`${LIST}?failed=${error.code === "DEAD_LETTER_NOT_FOUND" ? "gone" : "queue"}`);
  }
  return redirect(`${LIST}?replayed=${encodeURIComponent(id)}`);
}

export const deadLetterRoutes: DashboardRoute[] = [
  { method: "GET", path: "/dead-letters", handle: listPage },
  { method: "POST", path: "/dead-letters/:id/replay", handle: replay },
];
