// What every dashboard page handler receives: the request, its path parameters, and for signed-in pages
// the session, the viewer shown in the frame, and the API's typed client acting as the session's account.
import type { Accounts } from "../accounts/accounts.js";
import type { Users } from "../accounts/users.js";
import type { Routes } from "../client/routes.js";
import type { DeadLetterStore } from "../stores/dead-letter-store.js";
import type { IngestCounts } from "../stores/ingest-counts.js";
import type { OutcomeStore } from "../stores/outcome-store.js";
import type { InProcessApi } from "./in-process-api.js";
import type { Viewer } from "./layout.js";
import type { LiveHub } from "./live-hub.js";
import type { Session, Sessions } from "./sessions.js";
import type { SignInLimit } from "./sign-in-limit.js";
import type { WebRequest, WebResponse } from "./web.js";

/** Long-lived parts shared by every handler. */
export interface DashboardServices {
  accounts: Accounts;
  users: Users;
  sessions: Sessions;
  signInLimit: SignInLimit;
  api: InProcessApi;
  /** Live outcome pages' shared pollers and the per-session stream cap. */
  live: LiveHub;
  /** Reads the API has no route for: the home page's counts. */
  stores: { outcomes: OutcomeStore; deadLetters: DeadLetterStore; ingest: IngestCounts };
  signup: "open" | "closed";
  /** Cookie gets `Secure` (the public URL is https). */
  secureCookie: boolean;
  clock: () => number;
}

export interface PublicContext {
  req: WebRequest;
  params: Record<string, string>;
  services: DashboardServices;
}

export interface PageContext extends PublicContext {
  session: Session;
  viewer: Viewer;
  /** The HTTP API through the typed client, as the session's account. */
  client: Routes;
}

export interface PublicRoute {
  method: "GET" | "POST";
  path: string;
  public: true;
  handle(ctx: PublicContext): WebResponse | Promise<WebResponse>;
}

export interface PageRoute {
  method: "GET" | "POST";
  path: string;
  public?: false;
  handle(ctx: PageContext): WebResponse | Promise<WebResponse>;
}

export type DashboardRoute = PublicRoute | PageRoute;
