// One HTTP exchange with the service: bearer token, JSON body, timeout, trace context; every failure becomes
// a VerdictError (the service's error body when there is one, the client's own code when there is none).
import { parseRetryAfter } from "../http-headers/retry-after.js";
import type { ResolvedOptions } from "./options.js";
import { activeTraceparent, loadTraceApi } from "./trace-context.js";
import { VerdictError } from "./verdict-error.js";
import type { ErrorBody } from "./wire-types.js";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Query parameters; undefined values are left out. */
export type Query = Record<string, string | number | undefined>;

/** A path from literal parts and parameters: each parameter is percent-encoded as one segment. */
export function path(strings: TemplateStringsArray, ...params: string[]): string {
  let out = strings[0]!;
  params.forEach((param, i) => {
    out += encodeURIComponent(param) + strings[i + 1]!;
  });
  return out;
}

/** A path with its query string; undefined values are left out. */
export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === "" ? path : `${path}?${text}`;
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== "object" || body === null || !("error" in body)) return false;
  const error = body.error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string";
}

export interface RequestOptions {
  query?: Query | undefined;
  /** JSON text already, so a batch serialised once is resent as is. */
  body?: string | undefined;
  /** Defaults to the span active now; null sends none. */
  traceparent?: string | null | undefined;
}

/**
 * How the typed routes reach the service: resolves to the answer's parsed JSON body (undefined for a
 * bodiless answer) or rejects with a VerdictError. HTTP for fleets; the server's own pages call its
 * handlers in process through the same interface.
 */
export interface Transport {
  request(method: Method, path: string, options?: RequestOptions): Promise<unknown>;
}

export class HttpTransport implements Transport {
  private readonly authorization: string;

  constructor(private readonly options: ResolvedOptions) {
    this.authorization = `Bearer ${options.token}`;
  }

  /** Sends one request over fetch, with the bearer token, the timeout and the trace context. */
  async request(method: Method, path: string, options: RequestOptions = {}): Promise<unknown> {
    // Resolved after the first call: a request waits for the OpenTelemetry API only until it has loaded once.
    await loadTraceApi();
    const headers: Record<string, string> = { authorization: this.authorization };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const traceparent = options.traceparent === undefined ? activeTraceparent() : options.traceparent;
    if (traceparent !== undefined && traceparent !== null) headers.traceparent = traceparent;
    let response: Response;
    let text: string;
    try {
      const init: RequestInit = { method, headers, signal: AbortSignal.timeout(this.options.timeoutMs) };
      if (options.body !== undefined) init.body = options.body;
      response = await this.options.fetch(`${this.options.baseUrl}${withQuery(path, options.query)}`, init);
      // Read inside the try: a connection reset or the timeout can strike while the body streams in.
      text = await response.text();
    } catch (error) {
      throw transportError(error, this.options.timeoutMs, method, path);
    }
    const body = parseJson(text);
    if (response.ok) {
      if (body === PARSE_FAILED)
        throw new VerdictError(response.status, "UNEXPECTED_RESPONSE", `${method} ${path}: answer is not JSON`);
      return body;
    }
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    const requestId = response.headers.get("x-request-id") ?? undefined;
    if (isErrorBody(body)) {
      const { code, message, details, request_id } = body.error;
      throw new VerdictError(response.status, code, message, details, { requestId: request_id, retryAfterMs });
    }
    throw new VerdictError(
      response.status,
      "UNEXPECTED_RESPONSE",
      `${method} ${path}: HTTP ${response.status} without the service's error body`,
      undefined,
      {
        requestId,
        retryAfterMs,
      },
    );
  }
}

const PARSE_FAILED = Symbol("not JSON");

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return PARSE_FAILED;
  }
}

function transportError(error: unknown, timeoutMs: number, method: Method, path: string): VerdictError {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new VerdictError(0, "TIMEOUT", `${method} ${path}: no answer within ${timeoutMs} ms`, undefined, {
      cause: error,
    });
  }
  const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  return new VerdictError(0, "NETWORK_ERROR", `${method} ${path}: ${reason}`, undefined, { cause: error });
}
