// Shared by the ingress suites: an ingress-only app (the shared test app without a worker) plus HTTP
// helpers (fetch for ordinary requests, raw sockets for framing control).
import { connect } from "node:net";
import { DEFAULT_OPTIONS, type VerdictOptions } from "../../src/config/options.js";
import { startTestApp as startSharedTestApp, testOptions as sharedTestOptions, type TestApp } from "../support/app.js";
import type { Deployment } from "../support/redis.js";

export type { TestApp };

/**
 * Ingress suites run no worker (nothing consumes the streams they inspect) and use the production shard
 * count, which their shard-targeting keys assume.
 */
const INGRESS_DEFAULTS: Partial<VerdictOptions> = { role: "ingress", shards: DEFAULT_OPTIONS.shards };

export function testOptions(deployment: Deployment, overrides: Partial<VerdictOptions> = {}): VerdictOptions {
  return sharedTestOptions(deployment, { ...INGRESS_DEFAULTS, ...overrides });
}

/** An ingress-only app with one account (see test/support/app.ts). */
export function startTestApp(deployment: Deployment, overrides: Partial<VerdictOptions> = {}): Promise<TestApp> {
  return startSharedTestApp(deployment, { ...INGRESS_DEFAULTS, ...overrides });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function request(
  base: string,
  method: string,
  path: string,
  options: { token?: string | undefined; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(`${base}${path}`, { method, headers, body: body ?? null });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : (JSON.parse(text) as unknown);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const post = (base: string, path: string, token: string | undefined, body: unknown): Promise<Reply> =>
  request(base, "POST", path, { token, body });

export interface RawReply {
  status: number;
  head: string;
  body: string;
  /** True when the server closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends `head` (request line and headers, without the blank line) and then each body part in turn over a
 * plain socket, and resolves with the first response. With `holdLast`, the last part is only sent if the
 * server has not answered by then (so a server that answers early is not reset by unread bytes).
 */
export function rawRequest(
  port: number,
  head: string,
  parts: readonly (string | Buffer)[],
  holdLast = false,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        if (closed) {
          settled = true;
          reject(new Error(`connection closed before a response: ${JSON.stringify(text.slice(0, 200))}`));
        }
        return;
      }
      const headPart = text.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(headPart)?.[1] ?? "0");
      if (received.length < end + 4 + length && !closed) return;
      settled = true;
      resolve({
        status: Number(headPart.split(" ")[1]),
        head: headPart,
        body: received.subarray(end + 4, end + 4 + length).toString("utf8"),
        closed,
      });
      socket.destroy();
    };
    socket.on("data", (data) => {
      received = Buffer.concat([received, data]);
      finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.on("connect", () => {
      socket.write(`${head}\r\n\r\n`);
      const toSend = holdLast ? parts.slice(0, -1) : parts;
      for (const part of toSend) socket.write(part);
      if (holdLast && parts.length > 0) {
        // Give the server the chance to answer first; only a server still waiting gets the last part.
        setTimeout(() => {
          if (!settled && !socket.destroyed) socket.write(parts[parts.length - 1]!);
        }, 200);
      }
    });
  });
}

/** A chunked-encoding body (no Content-Length) of `body`, in chunks of at most `size` bytes. */
export function chunked(body: Buffer, size = 64 * 1024): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return parts;
}

/** A valid Variant B event whose JSON encoding is exactly `bytes` long. */
export function eventOfSize(bytes: number, key = "sized"): Buffer {
  const skeleton = { key, customer_key: "c", action: "sized", properties: { pad: "" } };
  const pad = bytes - Buffer.byteLength(JSON.stringify(skeleton));
  if (pad < 0) throw new Error("too small");
  return Buffer.from(JSON.stringify({ ...skeleton, properties: { pad: "x".repeat(pad) } }));
}

/** A valid batch whose JSON encoding is exactly `bytes` long. */
export function batchOfSize(bytes: number, key = "sized"): Buffer {
  const inner = eventOfSize(bytes - Buffer.byteLength('{"events":[]}'), key);
  return Buffer.concat([Buffer.from('{"events":['), inner, Buffer.from("]}")]);
}

export { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";
