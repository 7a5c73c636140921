// The route table every HTTP feature plugs into, the API's and the dashboard's pages alike: a method, a path
// pattern and a handler per row, matched by one router.
import { ApiError } from "../errors/api-error.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler sees: the authenticated account, decoded path parameters, the parsed JSON body. */
export interface ApiRequest {
  /** Account of the bearer token; "" on routes outside /v1 (which need no token). */
  accountId: string;
  /** Path parameters, percent-decoded per segment, so keys may contain colons and encoded slashes. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown;
  requestId: string;
  /** Server receive time at the edge, epoch milliseconds. */
  receivedAt: number;
  /** W3C traceparent of the request's span, only while tracing is on and this request is sampled. */
  traceparent?: string | undefined;
  /** The body as sent, with the headers that say how to read it; only on routes with `rawBody`. */
  raw?: RawBody | undefined;
}

/** A body the route decodes itself (OTLP: protobuf or JSON, maybe gzip). */
export interface RawBody {
  bytes: Buffer;
  /** The Content-Type header, "" when absent. */
  contentType: string;
  /** The Content-Encoding header, "" when absent. */
  contentEncoding: string;
}

export interface ApiResponse {
  status: number;
  /** Serialised as JSON; omitted for bodiless answers such as 204. */
  body?: unknown;
  /** Sent as is, in place of `body`; `headers` then carry its Content-Type. */
  bytes?: Buffer;
  /** `body` already written as JSON (a large answer written straight from its sums); sent in its place. */
  json?: Buffer;
  headers?: Record<string, string>;
}

/** What the router matches on; each table adds its own handler. */
export interface RoutePattern {
  method: HttpMethod;
  /** Path pattern, segments starting with `:` are parameters: "/v1/outcomes/:key/events". */
  path: string;
}

export interface Route extends RoutePattern {
  /** Largest accepted body in bytes (413 past it). @default DEFAULT_MAX_BODY_BYTES */
  maxBodyBytes?: number;
  /** Served without a token even under /v1 (the API's own description). @default false */
  anonymous?: boolean;
  /**
   * Asked once the token's account is known, before the body is read: an error is the answer, and the body
   * is never parsed (an account past its events-per-second rate). @default none
   */
  admit?(accountId: string): ApiError | undefined;
  /** The body is handed over unparsed in `req.raw` instead of parsed as JSON. @default false */
  rawBody?: boolean;
  /**
   * The answer for a refusal of this route (token, size, the handler's ApiError), when its clients expect
   * another error shape than the spec's (OTLP exporters read a google.rpc.Status). `contentType` is the
   * request's. @default the spec's error body
   */
  refusal?: (error: ApiError, contentType: string) => ApiResponse;
  /** Throws ApiError for answers in the spec's error shape. */
  handler(req: ApiRequest): Promise<ApiResponse>;
}

/** Body cap for routes that do not set one. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

type Segment = { literal: string } | { param: string };

interface CompiledRoute<R> {
  route: R;
  segments: Segment[];
  literals: number;
}

export type RouteMatch<R extends RoutePattern = Route> =
  | { kind: "found"; route: R; rawParams: Record<string, string> }
  | { kind: "not_found" }
  | { kind: "method_not_allowed"; allowed: HttpMethod[] };

function splitPath(path: string): string[] {
  return path.split("/").slice(1);
}

/** Matches a raw (still percent-encoded) request path against the table. */
export class Router<R extends RoutePattern = Route> {
  private readonly compiled: CompiledRoute<R>[];

  constructor(routes: readonly R[]) {
    const seen = new Set<string>();
    const compiled = routes.map((route) => {
      if (!route.path.startsWith("/")) throw new Error(`route path must start with '/': ${route.path}`);
      const segments: Segment[] = splitPath(route.path).map((part) =>
        part.startsWith(":") ? { param: part.slice(1) } : { literal: part },
      );
      const shape = `${route.method} ${segments.map((s) => ("param" in s ? ":" : s.literal)).join("/")}`;
      if (seen.has(shape)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      seen.add(shape);
      return { route, segments, literals: segments.filter((s) => "literal" in s).length };
    });
    // Literal segments win over parameters: /v1/dlq/stats is tried before /v1/dlq/:id.
    this.compiled = compiled.sort((a, b) => b.literals - a.literals);
  }

  match(method: string, rawPath: string): RouteMatch<R> {
    const parts = splitPath(rawPath);
    const allowed: HttpMethod[] = [];
    for (const { route, segments } of this.compiled) {
      if (segments.length !== parts.length) continue;
      const rawParams = matchSegments(segments, parts);
      if (rawParams === undefined) continue;
      if (route.method === method) return { kind: "found", route, rawParams };
      if (!allowed.includes(route.method)) allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "method_not_allowed", allowed } : { kind: "not_found" };
  }
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if ("literal" in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === "") return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}

/** Percent-decodes each path parameter; a malformed escape is the client's VALIDATION_ERROR. */
export function decodeParams(rawParams: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(rawParams)) {
    try {
      params[name] = decodeURIComponent(raw);
    } catch (error) {
      throw new ApiError(
        "VALIDATION_ERROR",
        `path parameter ${name} is not valid percent-encoding`,
        [{ path: name, message: "invalid percent-encoding" }],
        { cause: error },
      );
    }
  }
  return params;
}
