// One delivery attempt: a POST to the checked address (never a fresh DNS answer), no redirects followed,
// a hard timeout, and only the first KiB of the answer kept.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { CheckedTarget } from "./address-guard.js";

/** What one attempt got: an HTTP status, or a network error (status null). */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  /** The first 1 KiB of the response body. */
  response: string;
  durationMs: number;
  /** Seconds from a Retry-After header (delta-seconds or an HTTP date), when given. */
  retryAfterSeconds: number | null;
}

const RESPONSE_KEEP_BYTES = 1024;

/**
 * Connections are kept alive and reused per host and port: a new TCP (and TLS) handshake per message would
 * cost more than the message. A reused connection goes to the address checked when it was opened. As many
 * may stay idle as may be open: with fewer, every burst (up to 8 per endpoint and shard) closed the extra
 * connections and the next burst opened them again (bench/webhooks.ts: 1,100 to 1,600 connections per
 * 5,000 messages before, 64 after).
 */
const MAX_SOCKETS_PER_HOST = 64;
const AGENTS = {
  http: new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, maxFreeSockets: MAX_SOCKETS_PER_HOST }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, maxFreeSockets: MAX_SOCKETS_PER_HOST }),
};

export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export function postWebhook(target: CheckedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_hostname, options, callback) => {
    // Node asks for every address when it may race families (autoSelectFamily); one is all there is.
    if ((options as { all?: boolean }).all) (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const secure = target.url.protocol === "https:";
  const request = secure ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, "durationMs">): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: performance.now() - started });
    };
    const req = request(target.url, {
      method: "POST",
      lookup: pinned,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      agent: secure ? AGENTS.https : AGENTS.http,
    });
    const timer = setTimeout(() => {
      finish({ status: null, error: `timed out after ${timeoutMs} ms`, response: "", retryAfterSeconds: null });
      req.destroy();
    }, timeoutMs);
    req.on("error", (error: Error) => finish({ status: null, error: error.message, response: "", retryAfterSeconds: null }));
    req.on("response", (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = (): void => {
        const retryAfter: string | undefined = res.headers["retry-after"];
        finish({
          status: res.statusCode ?? null,
          error: null,
          response: Buffer.concat(chunks).subarray(0, RESPONSE_KEEP_BYTES).toString("utf8"),
          retryAfterSeconds: parseRetryAfter(retryAfter, Date.now()),
        });
        res.destroy();
      };
      res.on("data", (chunk: Buffer) => {
        if (kept < RESPONSE_KEEP_BYTES) {
          chunks.push(chunk);
          kept += chunk.length;
          if (kept >= RESPONSE_KEEP_BYTES) done();
        }
      });
      res.on("end", done);
      res.on("error", done);
    });
    req.end(body);
  });
}
