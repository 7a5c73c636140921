// Writing an exchange's one answer: JSON, bytes of the route's own encoding, or a large body streamed as the
// client reads it; refusals in the spec's error body (or the route's own shape), each counted and its span ended.
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { ApiError, type ErrorBody } from "../errors/api-error.js";
import type { Logger } from "../telemetry/logger.js";
import type { Exchange } from "./exchange.js";
import { statusLine, writeHead } from "./response-head.js";
import type { ApiResponse } from "./router.js";
import { sendStreamed } from "./streamed-answer.js";

/** Bodies up to this size are handed to uWS whole; larger ones are written as the client reads them. */
const STREAMED_BODY_BYTES = 64 * 1024;

/** Counts one answered request by route, method and status. */
export type CountRequest = (route: string, method: string, status: number) => void;

export class Answers {
  constructor(
    private readonly logger: Logger,
    private readonly count: CountRequest,
    /** A response write that makes no progress this long closes the connection. */
    private readonly writeStallMs: number,
  ) {}

  /** The exchange's answer, unless the client went away or it was answered already. */
  send(ex: Exchange, response: ApiResponse, closeConnection = false): void {
    if (ex.aborted || ex.answered) return;
    ex.answered = true;
    this.count(ex.route, ex.method, response.status);
    if (ex.span) endSpan(ex.span, response.status);
    if (response.bytes !== undefined) return this.sendBytes(ex, response, response.bytes, closeConnection);
    const text = response.json ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
    if (text !== undefined && !closeConnection && ex.abortable && text.length > STREAMED_BODY_BYTES) {
      const bytes = typeof text === "string" ? Buffer.from(text) : text;
      return sendStreamed(ex, response, bytes, this.writeStallMs, (refused) => this.answerRefusedHead(ex, refused));
    }
    ex.res.cork(() => {
      const fixed =
        text === undefined
          ? { "X-Request-Id": ex.requestId }
          : { "X-Request-Id": ex.requestId, "Content-Type": "application/json" };
      const refused = writeHead(ex.res, statusLine(response.status), fixed, response.headers);
      if (refused !== undefined) return this.answerRefusedHead(ex, refused);
      // endWithoutBody(undefined, ...) makes this uWS write `Content-Length: 9223372036854775808`, which
      // leaves the client waiting for a body that never comes; without arguments it writes no length at
      // all, as a 204 must (RFC 9110, 8.6). Bodiless answers are never errors, so never close.
      if (text === undefined) ex.res.endWithoutBody();
      else ex.res.end(text, closeConnection);
    });
  }

  /** A refusal: an ApiError as it is, anything else logged and answered INTERNAL_ERROR. */
  sendError(ex: Exchange, error: unknown, closeConnection = false, extraHeaders: Record<string, string> = {}): void {
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
    } else {
      this.logger.error({ err: error, requestId: ex.requestId, route: ex.route }, "request failed unexpectedly");
      apiError = new ApiError("INTERNAL_ERROR", "internal error");
    }
    const headers: Record<string, string> = { ...extraHeaders };
    if (apiError.retryAfterSeconds !== undefined) headers["Retry-After"] = String(apiError.retryAfterSeconds);
    if (apiError.code === "TOKEN_INVALID") headers["WWW-Authenticate"] = 'Bearer realm="verdict"';
    if (ex.refusal !== undefined) {
      const own = ex.refusal(apiError, ex.contentType);
      return this.send(ex, { ...own, headers: { ...headers, ...own.headers } }, closeConnection);
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
    this.send(ex, { status: apiError.status, body, headers }, closeConnection);
  }

  /** An answer whose body is bytes of the route's own encoding (its Content-Type in `response.headers`). */
  private sendBytes(ex: Exchange, response: ApiResponse, bytes: Buffer, closeConnection: boolean): void {
    ex.res.cork(() => {
      const refused = writeHead(
        ex.res,
        statusLine(response.status),
        { "X-Request-Id": ex.requestId },
        response.headers,
      );
      if (refused !== undefined) return this.answerRefusedHead(ex, refused);
      ex.res.end(bytes, closeConnection);
    });
  }

  /**
   * The answer in place of one whose header writeHead refused: fixed words, never the refused value, and a
   * 400 because only request text can put a line break where a header comes from. Call inside `res.cork`.
   */
  private answerRefusedHead(ex: Exchange, refused: string): void {
    this.logger.warn(
      { requestId: ex.requestId, route: ex.route, header: refused },
      "answer refused: a header value held CR, LF or NUL",
    );
    const body: ErrorBody = {
      error: {
        code: "VALIDATION_ERROR",
        message: "the answer would have carried a header with CR, LF or NUL",
        request_id: ex.requestId,
      },
    };
    writeHead(ex.res, statusLine(400), { "X-Request-Id": ex.requestId, "Content-Type": "application/json" });
    ex.res.end(JSON.stringify(body));
  }
}

/** Ends a request's span with its status (5xx marks it an error); its route was set when it started. */
function endSpan(span: Span, status: number): void {
  span.setAttribute("http.response.status_code", status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
