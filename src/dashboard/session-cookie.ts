// The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it),
// scoped to /dashboard, Secure behind https.
import { BASE } from "./layout.js";
import { SESSION_MAX_MS } from "./sessions.js";

export const SESSION_COOKIE = "verdict_session";

export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=${BASE}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_MS / 1000}${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=${BASE}; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;
}
