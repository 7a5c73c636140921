// Framing checks run on every request before anything else: a request whose body's extent is in doubt
// could smuggle a second request past a proxy in front.
import { ApiError } from "../errors/api-error.js";
import type { HttpRequest } from "./uws.js";

/**
 * Refuses framing a proxy in front might read differently from uWS (request smuggling): uWS takes the
 * first of two Content-Length headers where others take the last, and reads any Transfer-Encoding
 * ending in chunked as chunked. Only a single length, or exactly `chunked`, is accepted.
 */
export function checkFraming(req: HttpRequest): ApiError | undefined {
  let lengths = 0;
  let codings = 0;
  req.forEach((name) => {
    if (name === "content-length") lengths++;
    else if (name === "transfer-encoding") codings++;
  });
  if (lengths > 1) {
    return new ApiError("VALIDATION_ERROR", "more than one Content-Length header", [
      { path: "Content-Length", message: "send exactly one" },
    ]);
  }
  if (codings > 1 || (codings === 1 && req.getHeader("transfer-encoding").toLowerCase() !== "chunked")) {
    return new ApiError("VALIDATION_ERROR", "Transfer-Encoding must be exactly chunked", [
      { path: "Transfer-Encoding", message: "only chunked is supported" },
    ]);
  }
  return undefined;
}
