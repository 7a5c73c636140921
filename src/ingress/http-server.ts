// The HTTP edge on uWebSockets.js: one server, its mounts (the dashboard) and the API's pipeline for every
// other path, listening until closed.
import type { Logger } from "../telemetry/logger.js";
import type { Metrics } from "../telemetry/metrics.js";
import { Answers, type CountRequest } from "./answers.js";
import { apiPipeline } from "./api-pipeline.js";
import { Router, type Route } from "./router.js";
import {
  assertNativeUws,
  uWS,
  type HttpRequest,
  type HttpResponse,
  type TemplatedApp,
  type us_listen_socket,
} from "./uws.js";

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
 * of a body for as long as the socket lives, so clients that never read a large list would hold its memory.
 */
export const DEFAULT_WRITE_STALL_MS = 30_000;

export interface HttpServer {
  port: number;
  /** Stops accepting connections, then waits (at most `drainMs`) for requests in flight to be answered. */
  close(drainMs?: number): Promise<void>;
}

export function startHttpServer(deps: HttpServerDeps): Promise<HttpServer> {
  assertNativeUws();
  const app = uWS.App();
  mount(app, deps.mounts ?? []);
  const inFlight = { count: 0 };
  const answers = new Answers(deps.logger, requestCounter(deps.metrics), deps.writeStallMs ?? DEFAULT_WRITE_STALL_MS);
  const authenticate = (header: string): string | Promise<string> => deps.authenticate(header);
  app.any(
    "/*",
    apiPipeline({ router: new Router(deps.routes), answers, authenticate, clock: deps.clock ?? Date.now, inFlight }),
  );
  return listen(app, deps, inFlight);
}

/** uWS prefers the longer pattern, so a mount wins over the API's catch-all. */
function mount(app: TemplatedApp, mounts: readonly HttpMount[]): void {
  for (const mounted of mounts) {
    app.any(mounted.prefix, (res, req) => mounted.handle(res, req));
    app.any(`${mounted.prefix}/*`, (res, req) => mounted.handle(res, req));
  }
}

/** One labelled child per (route, method, status): resolving labels per request costs more than the count. */
function requestCounter(metrics: Metrics): CountRequest {
  const counters = new Map<string, { inc(): void }>();
  return (route, method, status) => {
    const key = `${route} ${method} ${status}`;
    let counter = counters.get(key);
    if (!counter) {
      counter = metrics.httpRequests.labels(route, method, String(status));
      counters.set(key, counter);
    }
    counter.inc();
  };
}

function listen(app: TemplatedApp, deps: HttpServerDeps, inFlight: { count: number }): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const onListen = (listenSocket: us_listen_socket | false): void => {
      if (!listenSocket) return reject(new Error(`could not listen on port ${deps.port}`));
      const port = uWS.us_socket_local_port(listenSocket);
      deps.logger.info({ port }, "ingress listening");
      resolve({
        port,
        close: async (drainMs = 5000) => {
          uWS.us_listen_socket_close(listenSocket);
          const deadline = Date.now() + drainMs;
          while (inFlight.count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        },
      });
    };
    if (deps.host === undefined) app.listen(deps.port, onListen);
    else app.listen(deps.host, deps.port, onListen);
  });
}
