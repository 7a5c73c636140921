// The dashboard calls the same route handlers as the HTTP API, in process, as the session's account: one
// set of validation rules, error messages and list shapes, and no way to reach another account's data.
import { Router, type HttpMethod, type Route } from "../ingress/router.js";

export interface ApiCall {
  query?: Record<string, string | undefined>;
  body?: unknown;
}

export class ApiClient {
  private readonly router: Router;

  constructor(
    routes: readonly Route[],
    private readonly clock: () => number,
  ) {
    this.router = new Router(routes);
  }

  /** The route's answer body; throws the route's ApiError (a 404, a VALIDATION_ERROR with details). */
  async call<T>(accountId: string, method: HttpMethod, path: string, call: ApiCall = {}): Promise<T> {
    const match = this.router.match(method, path);
    if (match.kind !== "found") throw new Error(`the dashboard called a missing API route: ${method} ${path}`);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined && value !== "") query.set(name, value);
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(match.rawParams)) params[name] = decodeURIComponent(value);
    const response = await match.route.handler({ accountId, params, query, body: call.body, requestId: "dashboard", receivedAt: this.clock() });
    return (response.json === undefined ? response.body : JSON.parse(response.json.toString())) as T;
  }
}

/** One path segment of an API path, encoded as a client would. */
export const segment = encodeURIComponent;
