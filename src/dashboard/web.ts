// The dashboard's own small HTTP layer on the ingress's uWebSockets.js server: reads a request (headers
// before any await, form bodies capped), writes pages, redirects and event streams, and puts the security
// headers on every answer.
import { writeHead } from "../ingress/response-head.js";
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

const STATUS_TEXT: Record<number, string> = {
  200: "200 OK",
  303: "303 See Other",
  400: "400 Bad Request",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  413: "413 Payload Too Large",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
};

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

export function page(status: number, body: string, extra: Partial<Omit<PageResponse, "kind" | "status" | "body">> = {}): PageResponse {
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
    // Everything uWS gives by reference must be read now, before the first await.
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const query = new URLSearchParams(req.getQuery() ?? "");
    const cookies = parseCookies(req.getHeader("cookie"));
    const origin = req.getHeader("origin");
    const host = req.getHeader("host");
    const contentType = req.getHeader("content-type");
    const address = Buffer.from(res.getRemoteAddressAsText()).toString();
    let aborted = false;
    let stopStream: (() => void) | undefined;
    res.onAborted(() => {
      aborted = true;
      stopStream?.();
    });

    const write = (response: WebResponse): void => {
      if (aborted) {
        if (response.kind === "stream") response.abandon?.();
        return;
      }
      res.cork(() => writeAnswer(res, response, onRefusedHeader));
      if (response.kind === "stream" && !aborted) {
        let stop = (): void => {};
        const end = (): void => {
          streams.delete(end);
          stop();
          if (!aborted) {
            aborted = true;
            res.cork(() => res.end());
          }
        };
        stopStream = () => {
          streams.delete(end);
          stop();
        };
        streams.add(end);
        const send = (event: string, data: string): void => {
          if (aborted) return;
          // A browser ends a stream line at CR, LF or CRLF alike: each becomes a data line of its own, so no
          // text in the data (an action, a key) can start a field or an event.
          const lines = data.split(LINE_BREAK).map((line) => `data: ${line}`).join("\n");
          res.cork(() => res.write(`event: ${event.replace(LINE_BREAK, "")}\n${lines}\n\n`));
        };
        stop = response.start(send, end);
      }
    };

    const body = method === "POST" ? readBody(res, () => aborted) : Promise.resolve(Buffer.alloc(0));
    void (async () => {
      write(await answer(handler, onError, body, contentType, { method, path, query, cookies, origin, host, address }));
    })();
  };
  return {
    handle,
    closeAll() {
      for (const end of [...streams]) end();
    },
  };
}

/** The head and body of an answer, or a stream's head; 400 instead when a header value is refused. */
function writeAnswer(res: HttpResponse, response: WebResponse, onRefusedHeader: (name: string) => void): void {
  if (response.kind === "stream") {
    writeHead(res, "200 OK", SECURITY_HEADERS, STREAM_HEADERS);
    // Data for the stream follows as it comes; end of headers now so the browser opens it.
    res.write(": open\n\n");
    return;
  }
  const status = STATUS_TEXT[response.status] ?? String(response.status);
  const type = { "Content-Type": response.contentType ?? "text/html; charset=utf-8" };
  const cookies = (response.cookies ?? []).map((cookie) => ["Set-Cookie", cookie] as const);
  const refused = writeHead(res, status, SECURITY_HEADERS, type, response.headers, cookies);
  if (refused === undefined) return void res.end(response.body);
  onRefusedHeader(refused);
  writeHead(res, STATUS_TEXT[400]!, SECURITY_HEADERS, { "Content-Type": "text/plain; charset=utf-8" });
  res.end("Bad request");
}

/** The handler's answer once the body is read: 413 for a body too large, 500 for what escaped the handler. */
async function answer(
  handler: WebHandler,
  onError: (error: unknown) => void,
  body: Promise<Buffer>,
  contentType: string,
  request: Omit<WebRequest, "form">,
): Promise<WebResponse> {
  let response: WebResponse;
  try {
    const bytes = await body;
    const isForm = contentType.startsWith("application/x-www-form-urlencoded");
    response = await handler({
      ...request,
      form: isForm ? new URLSearchParams(bytes.toString("utf8")) : new URLSearchParams(),
    });
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      response = page(413, "Request too large");
    } else {
      onError(error);
      response = page(500, "Something went wrong. Try again in a moment.", { contentType: "text/plain; charset=utf-8" });
    }
  }
  return response;
}

class BodyTooLarge extends Error {
  override readonly name = "BodyTooLarge";
}

function readBody(res: HttpResponse, aborted: () => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    res.onData((chunk, isLast) => {
      if (done || aborted()) return;
      total += chunk.byteLength;
      if (total > MAX_BODY_BYTES) {
        done = true;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) {
        done = true;
        resolve(Buffer.concat(chunks, total));
      }
    });
  });
}
