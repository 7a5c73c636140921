// The API's request pipeline, one step per decision, in this order: framing that could smuggle a request
// (400, connection closed), route (404/405), token (401), admission, size (413, also while reading), JSON
// (400), handler. Steps before the first await read the request; the rest may finish after it returned.
import { ApiError } from "../errors/api-error.js";
import { startRequestSpan, traceparentOf, tracingEnabled } from "../telemetry/tracing.js";
import type { Answers } from "./answers.js";
import { openExchange, watchAbort, type Exchange } from "./exchange.js";
import { checkFraming } from "./framing.js";
import { BodyTooLarge, parseBody, readBody } from "./request-body.js";
import { DEFAULT_MAX_BODY_BYTES, decodeParams, type ApiRequest, type Route, type Router } from "./router.js";
import type { HttpRequest, HttpResponse } from "./uws.js";

/** A declared body up to this many times the route's cap is skipped after a 413 instead of closing. */
const DRAIN_FACTOR = 2;

export interface PipelineDeps {
  router: Router;
  answers: Answers;
  /** The account of an `Authorization` header value (sync when known); throws TOKEN_INVALID. */
  authenticate(header: string): string | Promise<string>;
  clock: () => number;
  /** Requests whose handler has not settled yet, for a drain at close. */
  inFlight: { count: number };
}

/** The account, known now or once a token not seen before is verified. */
type Account = string | Promise<string>;

/** What the handler needs of the request head, read before any await (uWS reuses the request). */
interface Head {
  rawParams: Record<string, string>;
  rawQuery: string;
  contentEncoding: string;
}

/** The uWS handler of every request outside the mounts. */
export function apiPipeline(deps: PipelineDeps): (res: HttpResponse, req: HttpRequest) => void {
  const { router, answers } = deps;
  return (res, req) => {
    const ex = openExchange(res, req, deps.clock());
    // Framing first, before any answer that would keep the connection: the body's extent is in doubt,
    // so the connection cannot be trusted for a next request either.
    const framingError = checkFraming(req);
    if (framingError !== undefined) return answers.sendError(ex, framingError, true);
    const match = matchRoute(ex, req, router, answers);
    if (match === undefined) return;
    const { route } = match;
    const account = authenticate(ex, req, route, deps, answers);
    if (account === undefined) return;
    const head: Head = {
      rawParams: match.rawParams,
      rawQuery: req.getQuery() ?? "",
      contentEncoding: route.rawBody === true ? req.getHeader("content-encoding") : "",
    };
    const contentLength = req.getHeader("content-length");
    watchAbort(ex);
    const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const wantsBody = ex.method === "POST" || ex.method === "PUT" || ex.method === "PATCH";
    if (wantsBody && contentLength !== "" && Number(contentLength) > limit)
      return refuseDeclaredSize(ex, account, Number(contentLength), limit, answers);
    const declared = contentLength === "" ? undefined : Number(contentLength);
    const body = wantsBody ? readBody(ex, limit, declared) : Promise.resolve(undefined);
    // Tracing on and the request sampled: its span, and its traceparent for what the handler does on the
    // request's behalf. A caller's W3C traceparent header (a fleet's span) is this request's parent.
    if (tracingEnabled()) ex.span = startRequestSpan(ex.method, route.path, req);
    deps.inFlight.count++;
    handle(ex, route, account, body, head, answers)
      .catch((error: unknown) => {
        if (ex.aborted) return;
        // A body over the cap was not read to its end: close rather than resynchronise the connection.
        answers.sendError(ex, error, error instanceof BodyTooLarge);
      })
      .finally(() => deps.inFlight.count--);
    // A failed body read must not surface as an unhandled rejection when the token failed first.
    body.catch(() => {});
  };
}

/** The request's route, or undefined once its 404 or 405 is answered. */
function matchRoute(
  ex: Exchange,
  req: HttpRequest,
  router: Router,
  answers: Answers,
): { route: Route; rawParams: Record<string, string> } | undefined {
  const match = router.match(ex.method, ex.path);
  if (match.kind === "not_found") {
    answers.sendError(ex, new ApiError("NOT_FOUND", `no route ${ex.method} ${ex.path}`));
    return undefined;
  }
  if (match.kind === "method_not_allowed") {
    const allow = match.allowed.join(", ");
    answers.sendError(
      ex,
      new ApiError("METHOD_NOT_ALLOWED", `${ex.method} is not allowed on ${ex.path}; allowed: ${allow}`),
      false,
      { Allow: allow },
    );
    return undefined;
  }
  ex.route = match.route.path;
  if (match.route.refusal !== undefined || match.route.rawBody === true) {
    ex.refusal = match.route.refusal;
    ex.contentType = req.getHeader("content-type");
  }
  return match;
}

/**
 * The token's account ("" outside /v1 and on anonymous routes), or undefined once a refusal is answered: a
 * bad token, or an account the route refuses now, before a byte of its body is read or parsed.
 */
function authenticate(
  ex: Exchange,
  req: HttpRequest,
  route: Route,
  deps: PipelineDeps,
  answers: Answers,
): Account | undefined {
  let account: Account = "";
  if (ex.path.startsWith("/v1/") && route.anonymous !== true) {
    try {
      account = deps.authenticate(req.getHeader("authorization"));
    } catch (error) {
      answers.sendError(ex, error);
      return undefined;
    }
  }
  const refusal = typeof account === "string" ? route.admit?.(account) : undefined;
  if (refusal === undefined) return account;
  answers.sendError(ex, refusal);
  return undefined;
}

/**
 * A 413 before reading a byte. uWS skips a declared body it was not asked to read, so a body of modest
 * excess costs little to skip and keeps the connection; past that, closing is cheaper.
 */
function refuseDeclaredSize(ex: Exchange, account: Account, declared: number, limit: number, answers: Answers): void {
  const close = declared > limit * DRAIN_FACTOR;
  if (typeof account === "string") return answers.sendError(ex, new BodyTooLarge(limit), close);
  account.then(
    () => answers.sendError(ex, new BodyTooLarge(limit), close),
    (error: unknown) => answers.sendError(ex, error, close),
  );
}

/** The steps after the first await: the account, a late admission, the body, the handler's answer. */
async function handle(
  ex: Exchange,
  route: Route,
  account: Account,
  body: Promise<Buffer | undefined>,
  head: Head,
  answers: Answers,
): Promise<void> {
  const accountId = typeof account === "string" ? account : await account;
  ex.span?.setAttribute("verdict.account_id", accountId);
  // A token verified only now: its body is being read already, but still not parsed.
  if (typeof account !== "string") {
    const late = route.admit?.(accountId);
    if (late !== undefined) throw late;
  }
  const bytes = await body;
  const raw = route.rawBody === true;
  const request: ApiRequest = {
    accountId,
    params: decodeParams(head.rawParams),
    query: new URLSearchParams(head.rawQuery),
    body: raw ? undefined : parseBody(bytes),
    requestId: ex.requestId,
    receivedAt: ex.receivedAt,
    // Always present (see Exchange.span).
    traceparent: ex.span === undefined ? undefined : traceparentOf(ex.span),
    raw: raw
      ? { bytes: bytes ?? Buffer.alloc(0), contentType: ex.contentType, contentEncoding: head.contentEncoding }
      : undefined,
  };
  answers.send(ex, await route.handler(request));
}
