// One request's exchange on the API's pipeline: the state its steps and callbacks share, from the head read
// before any await to the answer written once.
import { randomUUID } from "node:crypto";
import type { Span } from "@opentelemetry/api";
import type { Route } from "./router.js";
import type { HttpRequest, HttpResponse } from "./uws.js";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The route label of a request no route matched. */
const UNMATCHED = "unmatched";

/** Per-request state shared by the steps and callbacks of one exchange. */
export interface Exchange {
  res: HttpResponse;
  requestId: string;
  method: string;
  /** Path as sent, still percent-encoded. */
  path: string;
  /** The business clock when the request arrived (`receivedAt`). */
  receivedAt: number;
  /** The matched route's path pattern, the label of its metrics. */
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

/** The exchange of a request just arrived; every field set here, so all exchanges share one shape. */
export function openExchange(res: HttpResponse, req: HttpRequest, receivedAt: number): Exchange {
  const clientId = req.getHeader("x-request-id");
  return {
    res,
    requestId: CLIENT_REQUEST_ID.test(clientId) ? clientId : randomUUID(),
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    receivedAt,
    route: UNMATCHED,
    aborted: false,
    answered: false,
    abortable: false,
    span: undefined,
    refusal: undefined,
    contentType: "",
  };
}

/** From here on the answer may come after the request callback returned: note the client going away. */
export function watchAbort(ex: Exchange): void {
  ex.res.onAborted(() => {
    if (ex.span && !ex.answered) ex.span.end();
    ex.aborted = true;
    ex.abortRead?.();
    ex.stopWriting?.();
  });
  ex.abortable = true;
}
