// The dashboard calls the HTTP API through the typed routes of verdict/client, over a transport that runs the
// API's own route handlers in process as the session's account: the same validation, error messages and list
// shapes a fleet gets, no socket, and no way to reach another account's data.
import { VerdictError } from "../client/verdict-error.js";
import { routes, type Routes } from "../client/routes.js";
import type { Method, Query, RequestOptions, Transport } from "../client/transport.js";
import { ApiError } from "../errors/api-error.js";
import { BodyTooLarge, parseJson } from "../ingress/request-body.js";
import { DEFAULT_MAX_BODY_BYTES, Router, decodeParams, type Route } from "../ingress/router.js";

const REQUEST_ID = "dashboard";

export class InProcessApi {
  private readonly router: Router;

  constructor(
    apiRoutes: readonly Route[],
    private readonly clock: () => number,
  ) {
    this.router = new Router(apiRoutes);
  }

  /** The typed client acting as `accountId`. */
  as(accountId: string): Routes {
    return routes(new InProcessTransport(this.router, accountId, this.clock));
  }
}

/** One call is one route handler's run, after the edge's own steps for a signed-in request: match, admit, size, JSON. */
class InProcessTransport implements Transport {
  constructor(
    private readonly router: Router,
    private readonly accountId: string,
    private readonly clock: () => number,
  ) {}

  async request(method: Method, path: string, options: RequestOptions = {}): Promise<unknown> {
    const match = this.router.match(method, path);
    if (match.kind !== "found") throw new Error(`the dashboard called a missing API route: ${method} ${path}`);
    const { route } = match;
    try {
      const refusal = route.admit?.(this.accountId);
      if (refusal !== undefined) throw refusal;
      const bytes = options.body === undefined ? undefined : Buffer.from(options.body);
      const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      if (bytes !== undefined && bytes.length > limit) throw new BodyTooLarge(limit);
      const response = await route.handler({
        accountId: this.accountId,
        params: decodeParams(match.rawParams),
        query: searchParams(options.query),
        body: parseJson(bytes),
        requestId: REQUEST_ID,
        receivedAt: this.clock(),
      });
      // A large answer comes already written as JSON (insights); the transport answers its value like HTTP would.
      return response.json === undefined ? response.body : (JSON.parse(response.json.toString()) as unknown);
    } catch (error) {
      throw error instanceof ApiError ? asVerdictError(error) : error;
    }
  }
}

function searchParams(query: Query | undefined): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value));
  return search;
}

/** The refusal as a fleet's client would see it from the error body. */
function asVerdictError(error: ApiError): VerdictError {
  const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
  return new VerdictError(error.status, error.code, error.message, error.details, {
    cause: error,
    requestId: REQUEST_ID,
    retryAfterMs,
  });
}
