// The one place answers get their status line and headers: a value with CR, LF or NUL would end the header
// early and let request text write headers of its own (response splitting), so such an answer is refused whole.
import type { HttpResponse } from "./uws.js";

/** Headers by name, or as pairs where a name repeats (Set-Cookie); undefined for none. */
export type HeaderGroup =
  Readonly<Record<string, string>> | readonly (readonly [name: string, value: string])[] | undefined;

const STATUS_LINES: Record<number, string> = {
  200: "200 OK",
  201: "201 Created",
  202: "202 Accepted",
  204: "204 No Content",
  303: "303 See Other",
  400: "400 Bad Request",
  401: "401 Unauthorized",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  409: "409 Conflict",
  413: "413 Payload Too Large",
  415: "415 Unsupported Media Type",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};

/** The status line's text for a status, for the API and the dashboard alike. */
export function statusLine(status: number): string {
  return STATUS_LINES[status] ?? String(status);
}

/** CR and LF end a header line; NUL ends a string in the C code below uWS. */
const FORBIDDEN = /[\r\n\0]/;

/** Calls `visit` on each header in order until it returns true; whether one did. */
function some(groups: readonly HeaderGroup[], visit: (name: string, value: string) => boolean): boolean {
  for (const group of groups) {
    if (group === undefined) continue;
    if (Array.isArray(group)) {
      for (const [name, value] of group as readonly (readonly [string, string])[]) if (visit(name, value)) return true;
    } else {
      const record = group as Readonly<Record<string, string>>;
      for (const name in record) if (visit(name, record[name]!)) return true;
    }
  }
  return false;
}

/** The name of the first header whose name or value may not go on the wire, or undefined when all may. */
export function refusedHeader(...groups: HeaderGroup[]): string | undefined {
  let refused: string | undefined;
  some(groups, (name, value) => {
    if (!FORBIDDEN.test(name) && !FORBIDDEN.test(value)) return false;
    refused = name;
    return true;
  });
  return refused;
}

/**
 * Writes the status line and every header, or nothing at all and returns the refused header's name: the
 * caller then answers with a fixed head of its own. Call inside `res.cork`.
 */
export function writeHead(res: HttpResponse, status: string, ...groups: HeaderGroup[]): string | undefined {
  const refused = FORBIDDEN.test(status) ? ":status" : refusedHeader(...groups);
  if (refused !== undefined) return refused;
  res.writeStatus(status);
  some(groups, (name, value) => {
    res.writeHeader(name, value);
    return false;
  });
  return undefined;
}
