// The dashboard's pages on the ingress's uWebSockets.js server, with the edge's own framing check, body read
// and status lines: reads a request (headers before any await, form bodies capped), writes pages, redirects
// and event streams, and puts the security headers on every answer.
import { checkFraming } from "../ingress/framing.js";
import { BodyTooLarge, readBody, type BodyReadTarget } from "../ingress/request-body.js";
import { statusLine, writeHead } from "../ingress/response-head.js";
import type { HttpRequest, HttpResponse } from "../ingress/uws.js";

export interface WebRequest {
  method: string;
  /** Path without the query string, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  cookies: Map<string, string>;
  /** `Origin` header, "" when absent. */
  origin: string;
  host: string;
  /** The client's address as the socket sees it. */
  address: string;
  /** A POST's url-encoded form (empty for other requests and other body types). */
  form: URLSearchParams;
}

export interface PageResponse {
  kind: "page";
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  cookies?: string[];
}

/**
 * A Server-Sent Events stream: `start` begins sending and returns the function that stops it (called when
 * the client goes away, on shutdown, or after `end`).
 */
export interface StreamResponse {
  kind: "stream";
  start(send: (event: string, data: string) => void, end: () => void): () => void;
  /** Called instead of `start` when the client went away before the stream could begin. */
  abandon?(): void;
}

export type WebResponse = PageResponse | StreamResponse;

export type WebHandler = (req: WebRequest) => Promise<WebResponse>;

/** Only this origin's files; no inline script or style, no framing, forms post only here. */
const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
  // Pages show the API token: never keep them in a shared or back-button cache.
  "Cache-Control": "no-store",
};

const STREAM_HEADERS = { "Content-Type": "text/event-stream" };
/** What ends a line of an event stream (HTML Living Standard, 9.2.5). */
const LINE_BREAK = /\r\n|\r|\n/g;

/** Forms and the condition check are small; anything larger is not the dashboard's. */
const MAX_BODY_BYTES = 64 * 1024;

export function page(
  status: number,
  body: string,
  extra: Partial<Omit<PageResponse, "kind" | "status" | "body">> = {},
): PageResponse {
  return { kind: "page", status, body, ...extra };
}

export function redirect(location: string, cookies: string[] = []): PageResponse {
  return { kind: "page", status: 303, body: "", headers: { Location: location }, cookies };
}

export function json(status: number, body: unknown): PageResponse {
  return { kind: "page", status, body: JSON.stringify(body), contentType: "application/json" };
}

function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return cookies;
}

export interface OpenStreams {
  /** Ends every open event stream (on shutdown). */
  closeAll(): void;
}

/** One request's state across its awaits: the body read's abort hook, and whether the client went away. */
interface WebExchange extends BodyReadTarget {
  aborted: boolean;
  stopStream: (() => void) | undefined;
}

/**
 * A uWS handler running `handler`; `onError` logs what escaped it (answered 500), `onRefusedHeader` an
 * answer refused for a header value with CR, LF or NUL (answered 400 instead).
 */
export function webHandler(
  handler: WebHandler,
  onError: (error: unknown) => void,
  onRefusedHeader: (name: string) => void,
): { handle(res: HttpResponse, req: HttpRequest): void } & OpenStreams {
  const streams = new Set<() => void>();
  const handle = (res: HttpResponse, req: HttpRequest): void => {
    // A body whose extent is in doubt could smuggle a request: refused, and the connection closed.
    if (checkFraming(req) !== undefined) return void res.cork(() => writeBadRequest(res, true));
    // Everything uWS gives by reference must be read now, before the first await.
    const request = readRequest(res, req);
    const contentType = req.getHeader("content-type");
    const ex: WebExchange = { res, aborted: false, stopStream: undefined };
    res.onAborted(() => {
      ex.aborted = true;
      ex.abortRead?.();
      ex.stopStream?.();
    });
    const body = request.method === "POST" ? readBody(ex, MAX_BODY_BYTES) : Promise.resolve(Buffer.alloc(0));
    void answer(handler, body, contentType, request).then(
      (response) => {
        if (ex.aborted) {
          if (response.kind === "stream") response.abandon?.();
          return;
        }
        res.cork(() => writeAnswer(res, response, onRefusedHeader));
        if (response.kind === "stream" && !ex.aborted) startStream(ex, response, streams);
      },
      (error: unknown) => {
        // A read the client abandoned has no one to answer; anything else escaped `answer` itself.
        if (!ex.aborted) onError(error);
      },
    );
  };
  return {
    handle,
    closeAll() {
      for (const end of [...streams]) end();
    },
  };

  /** The handler's answer once the body is read: 413 for a body too large, 500 for what escaped the handler. */
  async function answer(
    handler: WebHandler,
    body: Promise<Buffer>,
    contentType: string,
    request: Omit<WebRequest, "form">,
  ): Promise<WebResponse> {
    let bytes: Buffer;
    try {
      bytes = await body;
    } catch (error) {
      if (error instanceof BodyTooLarge) return page(413, "Request too large");
      throw error;
    }
    try {
      const isForm = contentType.startsWith("application/x-www-form-urlencoded");
      return await handler({
        ...request,
        form: isForm ? new URLSearchParams(bytes.toString("utf8")) : new URLSearchParams(),
      });
    } catch (error) {
      onError(error);
      return page(500, "Something went wrong. Try again in a moment.", { contentType: "text/plain; charset=utf-8" });
    }
  }
}

function readRequest(res: HttpResponse, req: HttpRequest): Omit<WebRequest, "form"> {
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ""),
    cookies: parseCookies(req.getHeader("cookie")),
    origin: req.getHeader("origin"),
    host: req.getHeader("host"),
    address: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
}

/** Begins an event stream whose head is written: each event as data lines, ended by either side or on shutdown. */
function startStream(ex: WebExchange, response: StreamResponse, streams: Set<() => void>): void {
  const { res } = ex;
  let stop = (): void => {};
  const end = (): void => {
    streams.delete(end);
    stop();
    if (!ex.aborted) {
      ex.aborted = true;
      res.cork(() => res.end());
    }
  };
  ex.stopStream = () => {
    streams.delete(end);
    stop();
  };
  streams.add(end);
  const send = (event: string, data: string): void => {
    if (ex.aborted) return;
    // A browser ends a stream line at CR, LF or CRLF alike: each becomes a data line of its own, so no
    // text in the data (an action, a key) can start a field or an event.
    const lines = data
      .split(LINE_BREAK)
      .map((line) => `data: ${line}`)
      .join("\n");
    res.cork(() => res.write(`event: ${event.replace(LINE_BREAK, "")}\n${lines}\n\n`));
  };
  stop = response.start(send, end);
}

/** The head and body of an answer, or a stream's head; 400 instead when a header value is refused. */
function writeAnswer(res: HttpResponse, response: WebResponse, onRefusedHeader: (name: string) => void): void {
  if (response.kind === "stream") {
    writeHead(res, statusLine(200), SECURITY_HEADERS, STREAM_HEADERS);
    // Data for the stream follows as it comes; end of headers now so the browser opens it.
    res.write(": open\n\n");
    return;
  }
  const type = { "Content-Type": response.contentType ?? "text/html; charset=utf-8" };
  const cookies = (response.cookies ?? []).map((cookie) => ["Set-Cookie", cookie] as const);
  const refused = writeHead(res, statusLine(response.status), SECURITY_HEADERS, type, response.headers, cookies);
  if (refused === undefined) return void res.end(response.body);
  onRefusedHeader(refused);
  writeBadRequest(res, false);
}

/** Fixed words for a request the dashboard will not serve; call inside `res.cork`. */
function writeBadRequest(res: HttpResponse, closeConnection: boolean): void {
  writeHead(res, statusLine(400), SECURITY_HEADERS, { "Content-Type": "text/plain; charset=utf-8" });
  res.end("Bad request", closeConnection);
}
