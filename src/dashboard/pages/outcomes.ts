// Outcomes: the filtered, cursor-paged list, and one outcome's page (status, goal, annotated condition,
// progress, settles_at with a countdown, observations, scores, event log) kept live by an event stream.
import type { ListPage } from "../../client/paging.js";
import type { LoggedEvent, Outcome, OutcomeStatus } from "../../client/wire-types.js";
import { given, refusedCursor, refusedWith } from "../api-answers.js";
import { annotatedCondition } from "../annotated-condition.js";
import type { DashboardRoute, PageContext } from "../context.js";
import { html, type Html } from "../html.js";
import { BASE, field, layout } from "../layout.js";
import { LIVE_STREAMS_PER_SESSION } from "../live-hub.js";
import { page, redirect, type WebResponse } from "../web.js";
import { noSuchPage, pager } from "./record-pages.js";

/** The stream re-checks its session this often, so signing out ends it. */
const LIVE_SESSION_CHECK_MS = 10_000;
const STATUSES = ["", "OPEN", "CONFIRMED", "FAILED"] as const;

const outcomePath = (key: string): string => `${BASE}/outcomes/${encodeURIComponent(key)}`;

function isStatus(text: string): text is OutcomeStatus {
  return text === "OPEN" || text === "CONFIRMED" || text === "FAILED";
}

function statusBadge(status: string, testId?: string): Html {
  return html`<span class="status status-${status}"${testId ? html` data-testid="${testId}"` : ""}>${status}</span>`;
}

function percent(progress: number): string {
  return `${Math.floor(progress * 1000) / 10}%`;
}

function settles(at: string | null): Html {
  if (at === null) return html`none`;
  return html`<time datetime="${at}">${at}</time> <span data-countdown="${at}"></span>`;
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

/** The part of an outcome's page that changes as events and verdicts arrive. */
export function outcomeLive(outcome: Outcome): Html {
  const observations = Object.entries(outcome.observations);
  return html`<dl class="facts">
  <dt>Status</dt><dd>${statusBadge(outcome.status, "outcome-status")}</dd>
  <dt>Goal</dt><dd>${outcome.goal ?? "none"}</dd>
  <dt>Progress</dt><dd><progress data-testid="outcome-progress" max="1" value="${outcome.progress}">${percent(outcome.progress)}</progress> ${percent(outcome.progress)}</dd>
  <dt>Settles at</dt><dd>${settles(outcome.settles_at)}</dd>
</dl>
<h2>Condition</h2>
<p class="condition" data-testid="outcome-condition">${annotatedCondition(outcome.condition)}</p>
<h2>Observations</h2>
${
  observations.length === 0
    ? html`<p>No events observed yet.</p>`
    : html`<table aria-label="Observations"><thead><tr><th scope="col">Action</th><th scope="col">Count</th><th scope="col">Last value</th><th scope="col">Last at</th></tr></thead><tbody>${observations.map(
        ([action, o]) =>
          html`<tr><td><code>${action}</code></td><td>${o.count}</td><td><code>${json(o.last_value)}</code></td><td>${o.last_at}</td></tr>`,
      )}</tbody></table>`
}
<h2>Scores</h2>
<dl class="facts">${Object.entries(outcome.scores).map(([name, score]) => html`<dt>${name}</dt><dd>${score ?? "not scored"}</dd>`)}</dl>`;
}

async function getOutcome(ctx: PageContext, key: string): Promise<Outcome | undefined> {
  try {
    return await ctx.client.outcomes.get(key);
  } catch (error) {
    if (refusedWith(error, "OUTCOME_NOT_FOUND")) return undefined;
    throw error;
  }
}

function missing(ctx: PageContext, key: string): WebResponse {
  return page(
    404,
    layout(
      ctx.viewer,
      "/outcomes",
      "No such outcome",
      html`<p>There is no outcome ${key}.</p><p><a href="${BASE}/outcomes">All outcomes</a></p>`,
    ),
  );
}

async function listPage(ctx: PageContext): Promise<WebResponse> {
  const q = ctx.req.query;
  const filter = {
    status: q.get("status") ?? "",
    task_key: q.get("task_key") ?? "",
    agent_key: q.get("agent_key") ?? "",
    customer_key: q.get("customer_key") ?? "",
    failed_clause: q.get("failed_clause") ?? "",
  };
  // A status or clause id typed into the URL: start again from the unfiltered list.
  const status = given(q, "status");
  if (status !== undefined && !isStatus(status)) return redirect(`${BASE}/outcomes`);
  let answer: ListPage<"outcomes", Outcome>;
  try {
    answer = await ctx.client.outcomes.list({
      status,
      task_key: given(q, "task_key"),
      agent_key: given(q, "agent_key"),
      customer_key: given(q, "customer_key"),
      failed_clause: given(q, "failed_clause"),
      cursor: given(q, "cursor"),
    });
  } catch (error) {
    if (refusedCursor(error)) return noSuchPage(ctx, "/outcomes", `${BASE}/outcomes`);
    if (refusedWith(error, "VALIDATION_ERROR")) return redirect(`${BASE}/outcomes`);
    throw error;
  }
  const rows = answer.outcomes.map(
    (o) => html`<tr>
  <td><a href="${outcomePath(o.key)}">${o.key}</a></td>
  <td>${statusBadge(o.status)}</td>
  <td><progress max="1" value="${o.progress}">${percent(o.progress)}</progress> ${percent(o.progress)}</td>
  <td>${o.settles_at ?? ""}</td>
  <td><code>${annotatedCondition(o.condition)}</code></td>
</tr>`,
  );
  const content = html`<form method="get" action="${BASE}/outcomes" class="filters" role="search">
  ${field("Status", "status", filter.status, { choices: STATUSES })}
  ${field("Task", "task_key", filter.task_key)}
  ${field("Agent", "agent_key", filter.agent_key)}
  ${field("Customer", "customer_key", filter.customer_key)}
  ${field("Failed on clause", "failed_clause", filter.failed_clause)}
  <button type="submit">Filter</button>
</form>
${
  rows.length === 0
    ? html`<p>No outcomes match.</p>`
    : html`<table><thead><tr><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Settles at</th><th scope="col">Condition</th></tr></thead><tbody>${rows}</tbody></table>`
}
${pager(ctx, answer.next_cursor)}`;
  return page(200, layout(ctx.viewer, "/outcomes", "Outcomes", content));
}

type EventPage = ListPage<"events", LoggedEvent>;

async function eventPage(ctx: PageContext, key: string, cursor: string | undefined): Promise<EventPage> {
  return ctx.client.outcomes.events(key, { cursor, limit: 50 });
}

/** The event log, oldest first, 50 a page; on the first page it is part of the live region. */
function eventLog(key: string, log: EventPage, firstPage: boolean): Html {
  const rows = log.events.map(
    (e) =>
      html`<tr><td>${e.received_at}</td><td><code>${e.action}</code></td><td><pre>${json(e.properties)}</pre></td><td>${e.idempotency_key ?? ""}</td></tr>`,
  );
  const links: Html[] = [];
  if (!firstPage) links.push(html`<a href="${outcomePath(key)}">First page</a>`);
  if (log.next_cursor !== null)
    links.push(
      html`<a href="${outcomePath(key)}?cursor=${encodeURIComponent(log.next_cursor)}" rel="next">Next page</a>`,
    );
  return html`<h2>Event log</h2>
${
  rows.length === 0
    ? html`<p>${firstPage ? "No events applied yet." : "No more events."}</p>`
    : html`<table aria-label="Event log"><thead><tr><th scope="col">Received</th><th scope="col">Action</th><th scope="col">Properties</th><th scope="col">Idempotency key</th></tr></thead><tbody>${rows}</tbody></table>`
}
${links.length > 0 ? html`<nav class="pager" aria-label="Event log pages">${links}</nav>` : ""}`;
}

async function outcomePage(ctx: PageContext): Promise<WebResponse> {
  const key = ctx.params.key!;
  const outcome = await getOutcome(ctx, key);
  if (!outcome) return missing(ctx, key);
  const cursor = ctx.req.query.get("cursor") || undefined;
  let log: EventPage;
  try {
    log = await eventPage(ctx, key, cursor);
  } catch (error) {
    if (refusedWith(error, "VALIDATION_ERROR")) return redirect(outcomePath(key));
    throw error;
  }
  // Later pages of the log stay still while read; the first page follows new events with the rest.
  const content =
    cursor === undefined
      ? html`<div data-live="${outcomePath(key)}/live" aria-live="polite">${outcomeLive(outcome)}${eventLog(key, log, true)}</div>`
      : html`<div data-live="${outcomePath(key)}/live?log=none" aria-live="polite">${outcomeLive(outcome)}</div>${eventLog(key, log, false)}`;
  return page(200, layout(ctx.viewer, "/outcomes", `Outcome ${key}`, content));
}

interface LiveData {
  outcome: Outcome | undefined;
  log: EventPage | undefined;
}

/**
 * Server-Sent Events: the live part's new HTML whenever it changes, from the one poller all viewers of this
 * outcome share (LiveHub); a session holds at most LIVE_STREAMS_PER_SESSION of them.
 */
async function liveStream(ctx: PageContext): Promise<WebResponse> {
  const key = ctx.params.key!;
  if (!(await getOutcome(ctx, key))) return missing(ctx, key);
  const withLog = ctx.req.query.get("log") !== "none";
  const { live, sessions } = ctx.services;
  const sessionId = ctx.session.id;
  if (!live.reserve(sessionId)) {
    const words = html`<p>This session already follows ${LIVE_STREAMS_PER_SESSION} pages live. Close one of them and reload this page.</p>`;
    return page(429, layout(ctx.viewer, "/outcomes", "Too many live pages", words));
  }
  const source = {
    read: async (): Promise<LiveData> => {
      const outcome = await getOutcome(ctx, key);
      return { outcome, log: outcome && withLog ? await eventPage(ctx, key, undefined) : undefined };
    },
    render: ({ outcome, log }: LiveData): string => {
      if (!outcome) return "";
      return log ? html`${outcomeLive(outcome)}${eventLog(key, log, true)}`.text : outcomeLive(outcome).text;
    },
  };
  return {
    kind: "stream",
    start(send, end) {
      const leave = live.watch(`${ctx.session.accountId}\n${key}\n${withLog ? "log" : "none"}`, source, (fragment) =>
        send("update", fragment),
      );
      const sessionCheck = setInterval(() => {
        sessions.touch(sessionId).then(
          (session) => {
            if (!session) end();
          },
          () => {},
        );
      }, LIVE_SESSION_CHECK_MS);
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        clearInterval(sessionCheck);
        leave();
        live.release(sessionId);
      };
    },
    abandon: () => live.release(sessionId),
  };
}

export const outcomeRoutes: DashboardRoute[] = [
  { method: "GET", path: "/outcomes", handle: listPage },
  { method: "GET", path: "/outcomes/:key", handle: outcomePage },
  { method: "GET", path: "/outcomes/:key/live", handle: liveStream },
];
