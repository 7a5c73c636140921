// The HTTP edge on uWebSockets.js: one catch-all handler runs every request through the route table, in the
// order of decisions.md section 5: route (404/405), token (401), size (413 while reading), JSON (400), handler;
// ahead of all of them, framing that could smuggle a request (400, connection closed).
import { randomUUID } from "node:crypto";
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { ApiError, type ErrorBody } from "../errors/api-error.js";
import type { Logger } from "../telemetry/logger.js";
import type { Metrics } from "../telemetry/metrics.js";
import { startRequestSpan, traceparentOf, tracingEnabled } from "../telemetry/tracing.js";
import { DEFAULT_MAX_BODY_BYTES, Router, decodeParams, type ApiRequest, type ApiResponse, type Route } from "./router.js";
import { checkFraming } from "./framing.js";
import { BodyTooLarge, parseJson, readBody } from "./request-body.js";
import { writeHead } from "./response-head.js";
import { assertNativeUws, uWS, type HttpRequest, type HttpResponse, type us_listen_socket } from "./uws.js";

/**
 * A path prefix answered by its own uWS handler, outside the JSON pipeline (the dashboard: HTML pages,
 * cookies, form posts, event streams). It sees `prefix` and everything under it.
 */
export interface HttpMount {
  prefix: string;
  handle(res: HttpResponse, req: HttpRequest): void;
}

export interface HttpServerDeps {
  routes: readonly Route[];
  /** The account of an `Authorization` header value (sync when known); throws TOKEN_INVALID. */
  authenticate(header: string): string | Promise<string>;
  logger: Logger;
  metrics: Metrics;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** The business clock stamped on requests (`receivedAt`). @default Date.now */
  clock?: () => number;
  /** A response write that makes no progress this long closes the connection. @default DEFAULT_WRITE_STALL_MS */
  writeStallMs?: number;
  /** Prefixes served by their own handlers. @default none */
  mounts?: readonly HttpMount[];
}

/**
 * Longest a client may leave a response unread before its connection is closed: uWS keeps the unsent rest
 * of a body for as long as the socket lives, so 300 clients that never read a large list held 160 MiB.
 */
export const DEFAULT_WRITE_STALL_MS = 30_000;

/** Bodies up to this size are handed to uWS whole; larger ones are written as the client reads them. */
const STREAMED_BODY_BYTES = 64 * 1024;

export interface HttpServer {
  port: number;
  /** Stops accepting connections, then waits (at most `drainMs`) for requests in flight to be answered. */
  close(drainMs?: number): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  200: "200 OK",
  201: "201 Created",
  202: "202 Accepted",
  204: "204 No Content",
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

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A declared body up to this many times the route's cap is skipped after a 413 instead of closing. */
const DRAIN_FACTOR = 2;
const UNMATCHED = "unmatched";

/** Per-request state shared by the callbacks of one exchange. */
interface Exchange {
  res: HttpResponse;
  requestId: string;
  method: string;
  route: string;
  aborted: boolean;
  answered: boolean;
  /** Fails a body read still waiting when the client goes away. */
  abortRead?: () => void;
  /** An abort handler is attached, so the answer may be written after the request callback returned. */
  abortable: boolean;
  /** Stops the stall timer of a response still being written. */
  stopWriting?: () => void;
  /**
   * The request's span, while tracing is on and the request is sampled; ended with the answer. Always
   * present, undefined when there is none: set on a sampled few only, it would give their exchanges
   * another hidden class and make every access to an exchange polymorphic.
   */
  span: Span | undefined;
  /** The matched route's own refusal shape (Route.refusal); undefined for the spec's error body. */
  refusal: Route["refusal"];
  /** The request's Content-Type, read only for routes with a refusal shape of their own or a raw body. */
  contentType: string;
}

export function startHttpServer(deps: HttpServerDeps): Promise<HttpServer> {
  assertNativeUws();
  const router = new Router(deps.routes);
  const { logger, metrics } = deps;
  const clock = deps.clock ?? Date.now;
  let inFlight = 0;
  // One labelled child per (route, method, status): resolving labels per request costs more than the count.
  const counters = new Map<string, { inc(): void }>();
  const countRequest = (route: string, method: string, status: number): void => {
    const key = `${route} ${method} ${status}`;
    let counter = counters.get(key);
    if (!counter) {
      counter = metrics.httpRequests.labels(route, method, String(status));
      counters.set(key, counter);
    }
    counter.inc();
  };

  const writeStallMs = deps.writeStallMs ?? DEFAULT_WRITE_STALL_MS;

  const send = (ex: Exchange, response: ApiResponse, closeConnection = false): void => {
    if (ex.aborted || ex.answered) return;
    ex.answered = true;
    countRequest(ex.route, ex.method, response.status);
    if (ex.span) endSpan(ex.span, response.status);
    if (response.bytes !== undefined) return sendBytes(ex, response, response.bytes, closeConnection, logger);
    const text = response.json ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
    if (text !== undefined && !closeConnection && ex.abortable && text.length > STREAMED_BODY_BYTES) {
      sendStreamed(ex, response, typeof text === "string" ? Buffer.from(text) : text, writeStallMs, logger);
      return;
    }
    ex.res.cork(() => {
      const fixed = text === undefined ? { "X-Request-Id": ex.requestId } : { "X-Request-Id": ex.requestId, "Content-Type": "application/json" };
      const refused = writeHead(ex.res, STATUS_TEXT[response.status] ?? String(response.status), fixed, response.headers);
      if (refused !== undefined) return answerRefusedHead(ex, logger, refused);
      // endWithoutBody(undefined, ...) makes this uWS write `Content-Length: 9223372036854775808`, which
      // leaves the client waiting for a body that never comes; without arguments it writes no length at
      // all, as a 204 must (RFC 9110, 8.6). Bodiless answers are never errors, so never close.
      if (text === undefined) ex.res.endWithoutBody();
      else ex.res.end(text, closeConnection);
    });
  };

  const sendError = (ex: Exchange, error: unknown, closeConnection = false, extraHeaders: Record<string, string> = {}): void => {
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
    } else {
      logger.error({ err: error, requestId: ex.requestId, route: ex.route }, "request failed unexpectedly");
      apiError = new ApiError("INTERNAL_ERROR", "internal error");
    }
    const headers: Record<string, string> = { ...extraHeaders };
    if (apiError.retryAfterSeconds !== undefined) headers["Retry-After"] = String(apiError.retryAfterSeconds);
    if (apiError.code === "TOKEN_INVALID") headers["WWW-Authenticate"] = 'Bearer realm="verdict"';
    if (ex.refusal !== undefined) {
      const own = ex.refusal(apiError, ex.contentType);
      return send(ex, { ...own, headers: { ...headers, ...own.headers } }, closeConnection);
    }
    const body: ErrorBody = {
      error: {
        code: apiError.code,
        message: apiError.message,
        ...(apiError.details !== undefined && { details: apiError.details }),
        ...(apiError.quota !== undefined && { quota: apiError.quota.name, limit: apiError.quota.limit }),
        request_id: ex.requestId,
      },
    };
    send(ex, { status: apiError.status, body, headers }, closeConnection);
  };

  const app = uWS.App();
  for (const mount of deps.mounts ?? []) {
    // uWS prefers the longer pattern, so these win over the catch-all below.
    app.any(mount.prefix, (res, req) => mount.handle(res, req));
    app.any(`${mount.prefix}/*`, (res, req) => mount.handle(res, req));
  }
  app.any("/*", (res, req) => {
    const receivedAt = clock();
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const clientId = req.getHeader("x-request-id");
    const ex: Exchange = {
      res,
      requestId: CLIENT_REQUEST_ID.test(clientId) ? clientId : randomUUID(),
      method,
      route: UNMATCHED,
      aborted: false,
      answered: false,
      abortable: false,
      span: undefined,
      refusal: undefined,
      contentType: "",
    };

    // Framing first, before any answer that would keep the connection: the body's extent is in doubt,
    // so the connection cannot be trusted for a next request either.
    const framingError = checkFraming(req);
    if (framingError !== undefined) return sendError(ex, framingError, true);

    const match = router.match(method, path);
    if (match.kind === "not_found") {
      return sendError(ex, new ApiError("NOT_FOUND", `no route ${method} ${path}`));
    }
    if (match.kind === "method_not_allowed") {
      const allow = match.allowed.join(", ");
      return sendError(ex, new ApiError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; allowed: ${allow}`), false, { Allow: allow });
    }
    const route = match.route;
    ex.route = route.path;
    if (route.refusal !== undefined || route.rawBody === true) {
      ex.refusal = route.refusal;
      ex.contentType = req.getHeader("content-type");
    }
    const contentEncoding = route.rawBody === true ? req.getHeader("content-encoding") : "";

    let account: string | Promise<string> = "";
    if (path.startsWith("/v1/") && route.anonymous !== true) {
      try {
        account = deps.authenticate(req.getHeader("authorization"));
      } catch (error) {
        return sendError(ex, error);
      }
    }
    // An account the route refuses now is answered before a byte of its body is read or parsed.
    const refusal = typeof account === "string" ? route.admit?.(account) : undefined;
    if (refusal !== undefined) return sendError(ex, refusal);
    const rawQuery = req.getQuery() ?? "";
    const contentLength = req.getHeader("content-length");
    const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

    // Everything below may finish after this callback returns.
    res.onAborted(() => {
      if (ex.span && !ex.answered) ex.span.end();
      ex.aborted = true;
      ex.abortRead?.();
      ex.stopWriting?.();
    });
    ex.abortable = true;

    const wantsBody = method === "POST" || method === "PUT" || method === "PATCH";
    if (wantsBody && contentLength !== "" && Number(contentLength) > limit) {
      // Refuse before reading a byte. uWS skips a declared body it was not asked to read, so a body of
      // modest excess costs little to skip and keeps the connection; past that, closing is cheaper.
      const close = Number(contentLength) > limit * DRAIN_FACTOR;
      if (typeof account === "string") return sendError(ex, new BodyTooLarge(limit), close);
      account.then(
        () => sendError(ex, new BodyTooLarge(limit), close),
        (error: unknown) => sendError(ex, error, close),
      );
      return;
    }
    const body = wantsBody ? readBody(ex, limit) : Promise.resolve(undefined);

    const run = async (): Promise<void> => {
      const accountId = typeof account === "string" ? account : await account;
      ex.span?.setAttribute("verdict.account_id", accountId);
      // A token verified only now: its body is being read already, but still not parsed.
      if (typeof account !== "string") {
        const late = route.admit?.(accountId);
        if (late !== undefined) throw late;
      }
      const bytes = await body;
      const request: ApiRequest = {
        accountId,
        params: decodeParams(match.rawParams),
        query: new URLSearchParams(rawQuery),
        body: route.rawBody === true ? undefined : parseJson(bytes),
        requestId: ex.requestId,
        receivedAt,
        // Always present (see Exchange.span).
        traceparent: ex.span === undefined ? undefined : traceparentOf(ex.span),
        raw: route.rawBody === true ? { bytes: bytes ?? Buffer.alloc(0), contentType: ex.contentType, contentEncoding } : undefined,
      };
      send(ex, await route.handler(request));
    };
    inFlight++;
    // Tracing on and the request sampled: its span; the handler gets its traceparent (ApiRequest.traceparent)
    // for what it does on the request's behalf (the envelope, the enqueue's links). A caller's trace
    // continues here: a W3C traceparent header (a fleet's span) is this request's parent.
    if (tracingEnabled()) {
      ex.span = startRequestSpan(method, route.path, req);
    }
    run()
      .catch((error: unknown) => {
        if (ex.aborted) return;
        // A body over the cap was not read to its end: close rather than resynchronise the connection.
        sendError(ex, error, error instanceof BodyTooLarge);
      })
      .finally(() => inFlight--);
    // A failed body read must not surface as an unhandled rejection when the token failed first.
    body.catch(() => {});
  });

  return new Promise((resolve, reject) => {
    const onListen = (listenSocket: us_listen_socket | false): void => {
      if (!listenSocket) {
        reject(new Error(`could not listen on port ${deps.port}`));
        return;
      }
      const port = uWS.us_socket_local_port(listenSocket);
      logger.info({ port }, "ingress listening");
      resolve({
        port,
        close: async (drainMs = 5000) => {
          uWS.us_listen_socket_close(listenSocket);
          const deadline = Date.now() + drainMs;
          while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        },
      });
    };
    if (deps.host === undefined) app.listen(deps.port, onListen);
    else app.listen(deps.host, deps.port, onListen);
  });
}

/** Ends a request's span with its status (5xx marks it an error); its route was set when it started. */
function endSpan(span: Span, status: number): void {
  span.setAttribute("http.response.status_code", status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** An answer whose body is bytes of the route's own encoding (its Content-Type in `response.headers`). */
function sendBytes(ex: Exchange, response: ApiResponse, bytes: Buffer, closeConnection: boolean, logger: Logger): void {
  ex.res.cork(() => {
    const refused = writeHead(ex.res, STATUS_TEXT[response.status] ?? String(response.status), { "X-Request-Id": ex.requestId }, response.headers);
    if (refused !== undefined) return answerRefusedHead(ex, logger, refused);
    ex.res.end(bytes, closeConnection);
  });
}

/**
 * The answer in place of one whose header writeHead refused: fixed words, never the refused value, and a
 * 400 because only request text can put a line break where a header comes from. Call inside `res.cork`.
 */
function answerRefusedHead(ex: Exchange, logger: Logger, refused: string): void {
  logger.warn({ requestId: ex.requestId, route: ex.route, header: refused }, "answer refused: a header value held CR, LF or NUL");
  const body: ErrorBody = { error: { code: "VALIDATION_ERROR", message: "the answer would have carried a header with CR, LF or NUL", request_id: ex.requestId } };
  writeHead(ex.res, STATUS_TEXT[400]!, { "X-Request-Id": ex.requestId, "Content-Type": "application/json" });
  ex.res.end(JSON.stringify(body));
}

/**
 * Writes a large body as the client takes it (tryEnd/onWritable), holding it in this one buffer rather
 * than a copy in uWS, and closes the connection when no byte has gone out for `stallMs`.
 */
function sendStreamed(ex: Exchange, response: ApiResponse, body: Buffer, stallMs: number, logger: Logger): void {
  const { res } = ex;
  let startOffset = 0;
  let timer: NodeJS.Timeout | undefined;
  let lastOffset = -1;
  const watch = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (ex.aborted) return;
      const offset = res.getWriteOffset();
      if (offset === lastOffset) {
        // close() runs onAborted, which stops this watch.
        res.close();
        return;
      }
      lastOffset = offset;
      watch();
    }, stallMs);
    timer.unref();
  };
  ex.stopWriting = () => clearTimeout(timer);
  let done = false;
  res.cork(() => {
    const refused = writeHead(res, STATUS_TEXT[response.status] ?? String(response.status), { "X-Request-Id": ex.requestId, "Content-Type": "application/json" }, response.headers);
    if (refused !== undefined) {
      done = true;
      return answerRefusedHead(ex, logger, refused);
    }
    startOffset = res.getWriteOffset();
    [, done] = res.tryEnd(body, body.length);
  });
  if (done) return;
  lastOffset = res.getWriteOffset();
  watch();
  res.onWritable((offset) => {
    const [ok, finished] = res.tryEnd(body.subarray(offset - startOffset), body.length);
    if (finished) ex.stopWriting?.();
    return ok;
  });
}
