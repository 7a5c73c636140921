// The HTTP edge on uWebSockets.js: one catch-all handler runs every request through the route table, in the
// order of decisions.md section 5: route (404/405), token (401), size (413 while reading), JSON (400), handler.
import { randomUUID } from "node:crypto";
import { ApiError } from "../errors/api-error.js";
import type { Logger } from "../telemetry/logger.js";
import type { Metrics } from "../telemetry/metrics.js";
import { DEFAULT_MAX_BODY_BYTES, Router, decodeParams, type ApiRequest, type ApiResponse, type Route } from "./router.js";
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
  /** Prefixes served by their own handlers. @default none */
  mounts?: readonly HttpMount[];
}

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
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  409: "409 Conflict",
  413: "413 Payload Too Large",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
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
}

class BodyTooLarge extends ApiError {
  constructor(limit: number) {
    super("PAYLOAD_TOO_LARGE", `request body is larger than ${limit} bytes`);
  }
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

  const send = (ex: Exchange, response: ApiResponse, closeConnection = false): void => {
    if (ex.aborted || ex.answered) return;
    ex.answered = true;
    countRequest(ex.route, ex.method, response.status);
    const text = response.body === undefined ? undefined : JSON.stringify(response.body);
    ex.res.cork(() => {
      ex.res.writeStatus(STATUS_TEXT[response.status] ?? String(response.status));
      ex.res.writeHeader("X-Request-Id", ex.requestId);
      if (text !== undefined) ex.res.writeHeader("Content-Type", "application/json");
      if (response.headers) for (const [name, value] of Object.entries(response.headers)) ex.res.writeHeader(name, value);
      if (text === undefined) ex.res.endWithoutBody(undefined, closeConnection);
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
    const body = {
      error: {
        code: apiError.code,
        message: apiError.message,
        ...(apiError.details !== undefined && { details: apiError.details }),
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
    };

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

    let account: string | Promise<string> = "";
    if (path.startsWith("/v1/")) {
      try {
        account = deps.authenticate(req.getHeader("authorization"));
      } catch (error) {
        return sendError(ex, error);
      }
    }
    const rawQuery = req.getQuery() ?? "";
    const contentLength = req.getHeader("content-length");
    const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

    // Everything below may finish after this callback returns.
    res.onAborted(() => {
      ex.aborted = true;
      ex.abortRead?.();
    });

    const wantsBody = method === "POST" || method === "PUT";
    if (wantsBody && contentLength !== "" && Number(contentLength) > limit) {
      // Refuse before reading a byte; the unread body goes with the connection.
      if (typeof account === "string") return sendError(ex, new BodyTooLarge(limit), true);
      account.then(
        () => sendError(ex, new BodyTooLarge(limit), true),
        (error: unknown) => sendError(ex, error, true),
      );
      return;
    }
    const body = wantsBody ? readBody(ex, limit) : Promise.resolve(undefined);

    const run = async (): Promise<void> => {
      const accountId = typeof account === "string" ? account : await account;
      const bytes = await body;
      const request: ApiRequest = {
        accountId,
        params: decodeParams(match.rawParams),
        query: new URLSearchParams(rawQuery),
        body: parseJson(bytes),
        requestId: ex.requestId,
        receivedAt,
      };
      send(ex, await route.handler(request));
    };
    inFlight++;
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

/** Collects the body, copying each chunk (uWS reuses them) and refusing past `limit` bytes. */
function readBody(ex: Exchange, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    ex.abortRead = () => {
      if (done) return;
      done = true;
      reject(new Error("client went away while sending the body"));
    };
    ex.res.onData((chunk, isLast) => {
      if (done) return;
      total += chunk.byteLength;
      if (total > limit) {
        done = true;
        reject(new BodyTooLarge(limit));
        return;
      }
      // Copied from Node's buffer pool: a fresh ArrayBuffer per request (chunk.slice) costs the GC far more.
      if (chunk.byteLength > 0) chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
      }
    });
  });
}

function parseJson(bytes: Buffer | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch (error) {
    throw new ApiError("VALIDATION_ERROR", "request body is not valid JSON", [{ path: "$", message: (error as Error).message }], { cause: error });
  }
}
