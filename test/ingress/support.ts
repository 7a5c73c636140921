// Shared by the ingress suites: an app started in-process on free ports against a test deployment, with an
// account and its token, plus HTTP helpers (fetch for ordinary requests, raw sockets for framing control).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Accounts } from "../../src/accounts/accounts.js";
import { startVerdict, type VerdictApp } from "../../src/app.js";
import { DEFAULT_OPTIONS, type RedisTarget, type VerdictOptions } from "../../src/config/options.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { endpointOf, uniquePrefix, type Deployment } from "../support/redis.js";

export interface TestApp {
  app: VerdictApp;
  base: string;
  accounts: Accounts;
  accountId: string;
  token: string;
  options: VerdictOptions;
}

export function targetOf(deployment: Deployment): RedisTarget {
  const endpoint = endpointOf(deployment);
  if (endpoint.kind === "cluster") return { kind: "cluster", nodes: endpoint.nodes };
  if (endpoint.kind === "standalone") return { kind: "standalone", url: endpoint.url };
  throw new Error("tests use standalone or cluster deployments");
}

export function testOptions(deployment: Deployment, overrides: Partial<VerdictOptions> = {}): VerdictOptions {
  return {
    ...DEFAULT_OPTIONS,
    role: "ingress",
    port: 0,
    metricsPort: 0,
    redis: targetOf(deployment),
    keyPrefix: uniquePrefix(),
    tokenSecret: randomBytes(24).toString("base64url"),
    ...overrides,
  };
}

/** Starts an ingress-only app (no worker consumes the streams under test) and creates one account. */
export async function startTestApp(deployment: Deployment, overrides: Partial<VerdictOptions> = {}): Promise<TestApp> {
  const options = testOptions(deployment, overrides);
  const app = await startVerdict(options, { logger: silentLogger });
  const accounts = new Accounts(app.redis, app.keys, options.tokenSecret);
  const { account_id: accountId, token } = await accounts.create("test");
  return { app, base: `http://127.0.0.1:${app.port}`, accounts, accountId, token, options };
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
  const response = await fetch(`${base}${path}`, { method, headers, body });
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
export function rawRequest(port: number, head: string, parts: readonly (string | Buffer)[], holdLast = false): Promise<RawReply> {
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

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  url: string;
  /** Kills the server (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** Kills it if still running and removes its directory. */
  cleanup(): Promise<void>;
}

/** A redis-server of the test's own (for killing it, or for settings the shared servers must not get). */
export async function startPrivateRedis(extra: string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "verdict-private-redis-"));
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", ...extra], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const kill = async (): Promise<void> => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    await exited;
  };
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) break;
    if (attempt > 100) throw new Error("private redis-server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    kill,
    cleanup: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
