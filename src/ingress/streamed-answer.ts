// A large answer written as the client reads it, holding the body in one buffer rather than a copy in uWS,
// and the connection closed when the client stops reading.
import type { Exchange } from "./exchange.js";
import { statusLine, writeHead } from "./response-head.js";
import type { ApiResponse } from "./router.js";

/**
 * Writes `body` with tryEnd/onWritable and closes the connection when no byte has gone out for `stallMs`;
 * `refusedHead` answers instead when writeHead refuses a header (called inside `res.cork`).
 */
export function sendStreamed(
  ex: Exchange,
  response: ApiResponse,
  body: Buffer,
  stallMs: number,
  refusedHead: (header: string) => void,
): void {
  const { res } = ex;
  let startOffset = 0;
  let timer: NodeJS.Timeout | undefined;
  let lastOffset = -1;
  const watch = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (ex.aborted) return;
      const offset = res.getWriteOffset();
      if (offset === lastOffset) {
        // close() runs onAborted, which stops this watch.
        res.close();
        return;
      }
      lastOffset = offset;
      watch();
    }, stallMs);
    timer.unref();
  };
  ex.stopWriting = () => clearTimeout(timer);
  let done = false;
  res.cork(() => {
    const refused = writeHead(
      res,
      statusLine(response.status),
      { "X-Request-Id": ex.requestId, "Content-Type": "application/json" },
      response.headers,
    );
    if (refused !== undefined) {
      done = true;
      return refusedHead(refused);
    }
    startOffset = res.getWriteOffset();
    [, done] = res.tryEnd(body, body.length);
  });
  if (done) return;
  lastOffset = res.getWriteOffset();
  watch();
  res.onWritable((offset) => {
    const [ok, finished] = res.tryEnd(body.subarray(offset - startOffset), body.length);
    if (finished) ex.stopWriting?.();
    return ok;
  });
}
