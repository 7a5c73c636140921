// One delivery attempt: a POST to the checked address (never a fresh DNS answer), no redirects followed,
// timeouts (connecting 10 s, undici's default; the answer's headers and each pause in its body
// `timeoutMs`), and only the first KiB of the answer kept. undici rather than node:http: 27 against 63
// us of CPU per request on this machine (keep-alive, 8 in flight, a 1 KB body), and a webhook's cost is
// mostly its request (docs/webhooks.md, Benchmark).
import type { LookupFunction } from "node:net";
import { Agent } from "undici";
import { parseRetryAfter } from "../http-headers/retry-after.js";
import type { CheckedTarget } from "./address-guard.js";

/** What one attempt got: an HTTP status, or a network error (status null). */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  /** The first 1 KiB of the response body. */
  response: string;
  durationMs: number;
  /** From a Retry-After header (delta-seconds or an HTTP date), when given. */
  retryAfterMs: number | null;
}

const RESPONSE_KEEP_BYTES = 1024;

/**
 * The address each host name was last checked to (address-guard.ts): the only answer connections get.
 * Only checked addresses are ever here, and a request is made only just after its host's check passed.
 */
const checkedAddresses = new Map<string, { address: string; family: 4 | 6 }>();

const pinnedLookup: LookupFunction = (hostname, options, callback) => {
  const checked = checkedAddresses.get(hostname);
  if (!checked) {
    callback(Object.assign(new Error(`no checked address for ${hostname}`), { code: "ENOTFOUND" }), "", 4);
    return;
  }
  // Node asks for every address when it may race families (autoSelectFamily); one is all there is.
  if (options.all)
    (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, [checked]);
  else callback(null, checked.address, checked.family);
};

/**
 * Connections are kept alive and reused per origin: a new TCP (and TLS) handshake per message would cost
 * more than the message. A reused connection goes to the address checked when it was opened.
 */
const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, connect: { lookup: pinnedLookup } });

export async function postWebhook(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: Buffer | string,
  timeoutMs: number,
): Promise<AttemptResult> {
  const started = performance.now();
  const { url } = target;
  checkedAddresses.set(url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname, {
    address: target.address,
    family: target.family,
  });
  try {
    const response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers,
      body,
      // undici's own timers (one coarse wheel) rather than an AbortSignal per request, which cost more
      // than the signing: the answer's headers within the timeout of sending, no longer pause in its body.
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      kept += chunk.length;
      // The rest is not read: leaving the body early closes that connection rather than reading a large answer.
      if (kept >= RESPONSE_KEEP_BYTES) break;
    }
    const retryAfter = response.headers["retry-after"];
    return {
      status: response.statusCode,
      error: null,
      response: Buffer.concat(chunks).subarray(0, RESPONSE_KEEP_BYTES).toString("utf8"),
      durationMs: performance.now() - started,
      retryAfterMs: typeof retryAfter === "string" ? (parseRetryAfter(retryAfter) ?? null) : null,
    };
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    const timedOut =
      code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT";
    return {
      status: null,
      error: timedOut ? `timed out after ${timeoutMs} ms` : errorText(error),
      response: "",
      durationMs: performance.now() - started,
      retryAfterMs: null,
    };
  }
}

/** undici wraps socket errors; the cause names what happened (ECONNREFUSED, ECONNRESET...). */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
