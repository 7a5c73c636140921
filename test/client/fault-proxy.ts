// A fault-injecting HTTP proxy in front of a real Verdict, for the client's suites: per request a policy says
// whether to forward it, refuse it (503, 429...) without forwarding, forward it and then cut the connection (the answer is
// lost, the effect is not), hold it past the client's timeout, or forward it and rewrite a 202 batch answer
// to say some items were `unconfirmed` although the service took them.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export type Fault =
  | { kind: "forward" }
  /** Answers this status (503 by default, or 429, 500...) with the service's error body (`code`, or one for the status), without forwarding. */
  | { kind: "refuse"; status?: number; retryAfter?: string; code?: string }
  | { kind: "reset-after-forward" }
  | { kind: "delay"; ms: number }
  | { kind: "unconfirm" }
  /** Holds the request until `release()`, then forwards it. */
  | { kind: "hold" };

export interface SeenRequest {
  method: string;
  path: string;
  body: string;
  at: number;
}

export interface FaultProxy {
  /** http://127.0.0.1:<port> */
  base: string;
  /** Every request as it arrived, before its fault was applied. */
  seen: SeenRequest[];
  counts: Record<Fault["kind"], number>;
  /** Refusals per status. */
  refusals: Map<number, number>;
  setPolicy(policy: (request: SeenRequest) => Fault): void;
  release(): void;
  close(): Promise<void>;
}

/** A seeded generator (mulberry32), so a failing run can be replayed with the same faults. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    // The body was read whole, so it goes with a length: a chunked request's transfer-encoding must not
    // travel beside it (a server refuses both, as uWebSockets.js does by closing the connection).
    const sent = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== "transfer-encoding"));
    const headers = { ...sent, host: target.host, "content-length": String(body.length) };
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (
              value !== undefined &&
              name !== "content-length" &&
              name !== "transfer-encoding" &&
              name !== "connection"
            )
              out[name] = String(value);
          }
          resolve({ status: res.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      },
    );
    upstream.on("error", reject);
    upstream.end(body);
  });
}

function reply(res: ServerResponse, upstream: Upstream): void {
  res.writeHead(upstream.status, { ...upstream.headers, "content-length": String(upstream.body.length) });
  res.end(upstream.body);
}

/**
 * Marks one random item and every later item of the same outcome `unconfirmed`, as the service answers when
 * an enqueue could not be confirmed (it cascades to the outcome's later items, interface spec rule 2).
 */
function unconfirmSome(requestBody: string, answer: Buffer, random: () => number): Buffer {
  const { events } = JSON.parse(requestBody) as { events: { outcome_key?: string; key?: string }[] };
  const parsed = JSON.parse(answer.toString()) as {
    accepted: number;
    failed: { index: number; reason: string }[];
    duplicates: number[];
  };
  const start = Math.floor(random() * events.length);
  const outcome = events[start]!.outcome_key ?? events[start]!.key;
  const failed = new Map(parsed.failed.map((f) => [f.index, f.reason]));
  for (let i = start; i < events.length; i++) {
    if ((events[i]!.outcome_key ?? events[i]!.key) === outcome && !failed.has(i)) failed.set(i, "unconfirmed");
  }
  const list = [...failed].sort(([a], [b]) => a - b).map(([index, reason]) => ({ index, reason }));
  return Buffer.from(
    JSON.stringify({
      accepted: events.length - list.length,
      failed: list,
      duplicates: parsed.duplicates.filter((d) => !failed.has(d)),
    }),
  );
}

export async function startFaultProxy(targetBase: string, seed = 1): Promise<FaultProxy> {
  const target = new URL(targetBase);
  const random = seeded(seed);
  let policy: (request: SeenRequest) => Fault = () => ({ kind: "forward" });
  let held: (() => void)[] = [];
  const seen: SeenRequest[] = [];
  const counts: Record<Fault["kind"], number> = {
    forward: 0,
    refuse: 0,
    "reset-after-forward": 0,
    delay: 0,
    unconfirm: 0,
    hold: 0,
  };
  const refusals = new Map<number, number>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const request: SeenRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      body: body.toString(),
      at: Date.now(),
    };
    seen.push(request);
    const fault = policy(request);
    counts[fault.kind]++;
    switch (fault.kind) {
      case "refuse": {
        const status = fault.status ?? 503;
        refusals.set(status, (refusals.get(status) ?? 0) + 1);
        const code =
          fault.code ?? (status === 503 ? "QUEUE_REJECTED" : status === 429 ? "RATE_LIMITED" : "INTERNAL_ERROR");
        const payload = Buffer.from(
          JSON.stringify({ error: { code, message: "injected by the fault proxy", request_id: "proxy" } }),
        );
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
        return reply(res, { status, headers, body: payload });
      }
      case "reset-after-forward":
        await forward(target, req, body);
        req.socket.destroy();
        return;
      case "delay":
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        break;
      case "hold":
        await new Promise<void>((resolve) => held.push(resolve));
        break;
      case "unconfirm": {
        const upstream = await forward(target, req, body);
        if (upstream.status === 202) upstream.body = unconfirmSome(request.body, upstream.body, random);
        return reply(res, upstream);
      }
      case "forward":
        break;
    }
    // The client may have given up (its timeout) while this waited: the request still reaches the service,
    // as a slow network's would, and only the answer is lost.
    const upstream = await forward(target, req, body);
    if (!res.destroyed) reply(res, upstream);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.destroyed) res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const release = (): void => {
    const waiting = held;
    held = [];
    waiting.forEach((resolve) => resolve());
  };
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    counts,
    refusals,
    setPolicy(next) {
      policy = next;
    },
    release,
    close() {
      release();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
