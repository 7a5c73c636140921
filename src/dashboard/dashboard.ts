// The dashboard at /dashboard: its route table, and the checks every request passes first: a session for
// every page but sign-in and sign-up, and for every POST a same-origin `Origin` and the session's CSRF token.
import { readFileSync } from "node:fs";
import type { Accounts } from "../accounts/accounts.js";
import { Users } from "../accounts/users.js";
import { MAX_KEY_LENGTH } from "../api/request-checks.js";
import { Router, type Route } from "../ingress/router.js";
import type { HttpRequest, HttpResponse } from "../ingress/uws.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { DeadLetterStore, type DeadLetterStoreOptions } from "../stores/dead-letter-store.js";
import { IngestCounts } from "../stores/ingest-counts.js";
import { OutcomeStore } from "../stores/outcome-store.js";
import type { Logger } from "../telemetry/logger.js";
import type { Metrics } from "../telemetry/metrics.js";
import type { DashboardRoute, DashboardServices, PageRoute, PublicContext } from "./context.js";
import { html } from "./html.js";
import { InProcessApi } from "./in-process-api.js";
import { BASE, publicLayout, type Viewer } from "./layout.js";
import { LIVE_POLL_MS, LiveHub } from "./live-hub.js";
import { dashboardPages } from "./pages/index.js";
import { SESSION_COOKIE } from "./session-cookie.js";
import { csrfMatches, Sessions } from "./sessions.js";
import { SignInLimit } from "./sign-in-limit.js";
import { page, redirect, webHandler, type WebRequest, type WebResponse } from "./web.js";

export interface DashboardDeps {
  /** The HTTP API's resource routes, which the pages call in process. */
  apiRoutes: readonly Route[];
  accounts: Accounts;
  redis: RedisClient;
  keys: Keys;
  shards: number;
  logger: Logger;
  metrics: Metrics;
  signup: "open" | "closed";
  /** The public URL (VERDICT_PUBLIC_URL): the only origin form posts may come from, and https makes the cookie Secure. */
  publicUrl: string | undefined;
  /** The archive's dead letters, which the home page counts with those in Redis; undefined without an archive. */
  archivedDeadLetters: DeadLetterStoreOptions["archive"];
  clock: () => number;
}

export interface Dashboard {
  prefix: string;
  handle(res: HttpResponse, req: HttpRequest): void;
  /** Ends open live-update streams so the server can stop. */
  close(): void;
}

const STATIC: Record<string, string> = {
  "dashboard.js": "text/javascript; charset=utf-8",
  "charts.js": "text/javascript; charset=utf-8",
  "dashboard.css": "text/css; charset=utf-8",
};

function loadStatic(): Map<string, { body: string; contentType: string }> {
  const files = new Map<string, { body: string; contentType: string }>();
  for (const [name, contentType] of Object.entries(STATIC)) {
    files.set(`${BASE}/static/${name}`, {
      body: readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8"),
      contentType,
    });
  }
  return files;
}

/**
 * Whether every segment of a page path could name a page: valid percent-encoding, and no longer than the
 * API's keys (a longer key or id names no page: 404, not the API's 400).
 */
function namesAPage(path: string): boolean {
  return path.split("/").every((part) => {
    try {
      return decodeURIComponent(part).length <= MAX_KEY_LENGTH;
    } catch {
      return false;
    }
  });
}

function decodedParams(rawParams: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(rawParams)) params[name] = decodeURIComponent(raw);
  return params;
}

function forbidden(message: string, back = BASE): WebResponse {
  return page(
    403,
    publicLayout(
      "Refused",
      html`<p>${message}</p><p><a href="${back}">${back === BASE ? "Back to the dashboard" : "Sign in"}</a></p>`,
    ),
  );
}

function dashboardServices(deps: DashboardDeps): DashboardServices {
  return {
    accounts: deps.accounts,
    users: new Users(deps.redis, deps.keys),
    sessions: new Sessions(deps.redis, deps.keys),
    signInLimit: new SignInLimit(deps.redis, deps.keys, deps.clock),
    api: new InProcessApi(deps.apiRoutes, deps.clock),
    live: new LiveHub(LIVE_POLL_MS, () => deps.metrics.dashboardLiveRenders.inc()),
    stores: {
      outcomes: new OutcomeStore(deps.redis, deps.keys, deps.shards),
      // Letters are counted, never listed, here: their events' size does not matter.
      deadLetters: new DeadLetterStore(deps.redis, deps.keys, deps.shards, {
        archive: deps.archivedDeadLetters,
        maxEventBytes: Number.POSITIVE_INFINITY,
      }),
      ingest: new IngestCounts(deps.redis, deps.keys, deps.shards),
    },
    signup: deps.signup,
    secureCookie: deps.publicUrl?.startsWith("https:") ?? false,
    clock: deps.clock,
  };
}

export function createDashboard(deps: DashboardDeps): Dashboard {
  const web = webHandler(
    pageDispatch(dashboardServices(deps), deps.publicUrl),
    (error) => deps.logger.error({ err: error }, "dashboard request failed"),
    (header) => deps.logger.warn({ header }, "dashboard answer refused: a header value held CR, LF or NUL"),
  );
  return { prefix: BASE, handle: (res, req) => web.handle(res, req), close: () => web.closeAll() };
}

/**
 * Every request in turn: a static file, the page's route, the same-origin check of a form, then for
 * signed-in pages the session and CSRF checks.
 */
function pageDispatch(
  services: DashboardServices,
  publicUrl: string | undefined,
): (req: WebRequest) => Promise<WebResponse> {
  const expectedOrigin = publicUrl === undefined ? undefined : new URL(publicUrl).origin;
  const router = new Router<DashboardRoute>(dashboardPages);
  const files = loadStatic();

  /** A browser always sends Origin on a POST; it must be this server, as configured or as addressed. */
  const sameOrigin = (req: WebRequest): boolean => {
    if (req.origin === "" || req.origin === "null") return false;
    if (expectedOrigin !== undefined) return req.origin === expectedOrigin;
    try {
      return new URL(req.origin).host === req.host;
    } catch {
      return false;
    }
  };

  return async (req: WebRequest): Promise<WebResponse> => {
    const file = files.get(req.path);
    if (file && req.method === "GET") return page(200, file.body, { contentType: file.contentType });
    const path = req.path === BASE ? "/" : req.path.slice(BASE.length);
    const match = namesAPage(path) ? router.match(req.method, path) : { kind: "not_found" as const };
    if (match.kind !== "found")
      return page(
        match.kind === "method_not_allowed" ? 405 : 404,
        publicLayout("Not found", html`<p>There is no such page.</p><p><a href="${BASE}">Dashboard home</a></p>`),
      );
    const { route } = match;
    const params = decodedParams(match.rawParams);
    if (req.method === "POST" && !sameOrigin(req))
      return forbidden("This form was sent from another site, so it was refused.");
    const base: PublicContext = { req, params, services };
    if (route.public) return route.handle(base);

    return signedInPage(route, base);
  };
}

/** A signed-in page: its live session, a form's CSRF token, then the page as the session's account. */
async function signedInPage(route: PageRoute, base: PublicContext): Promise<WebResponse> {
  const { req, services } = base;
  const session = await services.sessions.touch(req.cookies.get(SESSION_COOKIE) ?? "");
  if (!session) {
    // A form sent without a live session changes nothing: 403, with the way back in.
    if (req.method === "POST")
      return forbidden(
        "Your session has ended, so this form was not applied. Sign in and try again.",
        `${BASE}/sign-in`,
      );
    return redirect(
      `${BASE}/sign-in?next=${encodeURIComponent(req.path + (req.query.size > 0 ? `?${req.query.toString()}` : ""))}`,
    );
  }
  if (req.method === "POST" && !csrfMatches(session, req.form.get("_csrf") ?? undefined)) {
    return forbidden("This form has expired or did not come from this dashboard. Reload the page and try again.");
  }
  const viewer: Viewer = {
    email: session.email,
    accountName: (await services.accounts.name(session.accountId)) ?? session.accountId,
    csrf: session.csrf,
  };
  return route.handle({ ...base, session, viewer, client: services.api.as(session.accountId) });
}
