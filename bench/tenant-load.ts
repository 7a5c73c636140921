// The two tenants of issue 37, shared by test/tenants/two-tenants.test.ts and `npm run bench:tenants`: B's
// steady sender on a thread of its own (the flood's work in the caller's thread cannot hold B's requests
// back before they are sent), and account A's flood every way the probe found.
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { Worker } from "node:worker_threads";

export interface SteadyLoad {
  base: string;
  token: string;
  /** Events a second. */
  rate: number;
  seconds: number;
  /** Outcomes b-0 ... b-(n-1), already open. */
  outcomes: number;
  /** A name for this run: it makes the idempotency keys unique across runs. */
  round: string;
}

export interface SteadyRun {
  round: string;
  sent: number;
  /** Statuses of the answers that were not 202. */
  refused: number[];
  p50Ms: number;
  p99Ms: number;
}

// Plain JavaScript: the thread runs without the test runner's TypeScript transform. node:http with kept-alive
// connections, not fetch: fetch cost this thread about 0.9 ms of CPU per event, on the cores it measures.
const SENDER = `
const { parentPort, workerData: load } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true });
const url = new URL(load.base + "/v1/events");
const latencies = [];
const refused = [];
const started = performance.now();
const total = load.rate * load.seconds;
const send = (n) =>
  new Promise((resolve) => {
    const at = performance.now();
    const body = JSON.stringify({ outcome_key: "b-" + (n % load.outcomes), action: "step", idempotency_key: load.round + "/" + n });
    const done = (status) => {
      latencies.push(performance.now() - at);
      if (status !== 202) refused.push(status);
      resolve();
    };
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent,
        headers: { authorization: "Bearer " + load.token, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on("end", () => done(response.statusCode));
        response.on("error", () => done(0));
      },
    );
    request.on("error", () => done(0));
    request.end(body);
  });
(async () => {
  const inFlight = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / load.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(n));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  parentPort.postMessage({ sent: total, refused, p50Ms: at(0.5), p99Ms: at(0.99) });
})();
`;

/** Runs one steady load to its end on a new thread. */
export function steadyLoad(load: SteadyLoad): Promise<SteadyRun> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SENDER, { eval: true, workerData: load });
    worker.once("message", (result: Omit<SteadyRun, "round">) => {
      resolve({ round: load.round, ...result });
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

/** `serialized`: the body is JSON text already. */
export type Call = (
  token: string,
  method: string,
  path: string,
  body?: unknown,
  serialized?: boolean,
) => Promise<{ status: number; body: unknown }>;

/**
 * A JSON call to the API at `base` with a bearer token, over kept-alive node:http connections (fetch's CPU per
 * request was the flood generator's largest cost). A kept-alive connection the server closed while it sat
 * idle between phases fails the request sent on it at once, unread: that one is sent again, on a new one.
 */
export function apiCaller(base: string): Call {
  const agent = new Agent({ keepAlive: true });
  const { hostname, port } = new URL(base);
  const call: Call = (token, method, path, body, serialized = false) =>
    once(agent, token, method, path, body, serialized).catch((error: unknown) => {
      if (!(error instanceof StaleConnection)) throw error;
      // A connection of its own: the pool's next idle one may be just as stale.
      return once(false, token, method, path, body, serialized);
    });
  const once = (
    via: Agent | false,
    ...[token, method, path, body, serialized = false]: Parameters<Call>
  ): ReturnType<Call> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : serialized ? (body as string) : JSON.stringify(body);
      const headers: Record<string, string | number> = {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      };
      if (text !== undefined) headers["content-length"] = Buffer.byteLength(text);
      const req = request({ host: hostname, port, path, method, agent: via, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const answer = Buffer.concat(chunks).toString();
          resolve({
            status: response.statusCode ?? 0,
            body: answer === "" ? undefined : (JSON.parse(answer) as unknown),
          });
        });
      });
      req.on("error", (error: NodeJS.ErrnoException) =>
        reject(req.reusedSocket && error.code === "ECONNRESET" ? new StaleConnection(error) : error),
      );
      req.end(text);
    });
  return call;
}

/** A request that failed on a kept-alive connection the server had closed: never read, safe to send again. */
class StaleConnection extends Error {
  constructor(cause: Error) {
    super("kept-alive connection closed by the server", { cause });
  }
}

/** A dashboard visitor signed in as account A: what the live pages need. */
export interface FloodVisitor {
  readonly base: string;
  readonly cookie: string;
}

export interface FloodOptions {
  /** Webhook endpoints A tries to register (more than its quota). */
  endpoints: number;
  /** Live pages of A's large outcome kept open. */
  livePages: number;
  /**
   * Dead-lettering events a second A offers (twice its rate quota is A at its full rate with as much again
   * refused): A's fleet runs elsewhere, so the generator paces it rather than spend this machine's cores.
   */
  deadLetterRate: number;
}

/** Batches of dead-lettering events prepared once, sent in turn: the generator only writes bytes. */
const BODIES = 16;
const BATCH = 500;
/** Batches of A's in flight at most: a slow answer delays the next batch only when this many wait. */
const IN_FLIGHT = 4;
/**
 * Oversized events and sign-ins a second, one at a time: about what they reached back to back on a quiet
 * machine (1,134 and 539 in 24 s, 2026-11-27), fixed so that every run and build gets the same flood.
 */
const OVERSIZED_RATE = 50;
const SIGN_IN_RATE = 25;

/** Account A at its worst, every way at once, until `run`'s time is up. */
export class Flood {
  readonly sent = {
    deadLetterEvents: 0,
    /** Enqueued by the service (each becomes a dead letter). */
    deadLetterAdmitted: 0,
    /** Refused whole: 429 before the body was read. */
    deadLetterRefused: 0,
    /** Refused item by item in a 202's `failed` as `rate_limited`. */
    deadLetterRateLimited: 0,
    oversizedEvents: 0,
    endpointsRefused: 0,
    liveStreams: 0,
    signIns: 0,
  };
  /** The code of each refused endpoint (QUOTA_EXCEEDED expected). */
  readonly endpointCodes: string[] = [];
  private stopAt = 0;

  constructor(
    private readonly call: Call,
    private readonly token: string,
    private readonly visitor: FloodVisitor,
    private readonly options: FloodOptions,
  ) {}

  /**
   * More endpoints than the quota (at a port where nothing listens: deliveries fail at once and back off, so
   * the fan-out's storage is what is measured, not a receiver's speed), and one open outcome for the live pages.
   */
  async prepare(): Promise<void> {
    for (let i = 0; i < this.options.endpoints; i++) {
      const reply = await this.call(this.token, "POST", "/v1/webhook-endpoints", { url: `http://127.0.0.1:9/a-${i}` });
      if (reply.status !== 201) {
        this.endpointCodes.push(
          (reply.body as { error?: { code?: string } } | undefined)?.error?.code ?? String(reply.status),
        );
        this.sent.endpointsRefused++;
      }
    }
    const task = await this.call(this.token, "PUT", "/v1/tasks/big", { name: "big", condition: "COUNT(never)>=1" });
    const outcome = await this.call(this.token, "POST", "/v1/outcomes", { key: "big", task_key: "big" });
    if (task.status !== 201 || outcome.status !== 201)
      throw new Error(`A's large outcome not set up (${task.status}, ${outcome.status})`);
  }

  async run(ms: number): Promise<void> {
    this.stopAt = Date.now() + ms;
    await Promise.all([this.deadLetters(), this.oversized(), this.livePages(), this.signInSpam()]);
  }

  /** Calls `send(n)` for n = 0, 1, ... one after the other, the n-th not before n / rate seconds in. */
  private async paced(rate: number, send: (n: number) => Promise<void>): Promise<void> {
    const started = Date.now();
    for (let n = 0; this.going; n++) {
      const wait = started + (n * 1000) / rate - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.going) await send(n);
    }
  }

  private get going(): boolean {
    return Date.now() < this.stopAt;
  }

  /**
   * Batches of 500 events for outcomes never opened at `deadLetterRate`, a batch due every 500 / rate seconds
   * (up to IN_FLIGHT at once, none skipped when the answers are slow: a 429 is simply the next batch).
   */
  private async deadLetters(): Promise<void> {
    const bodies = Array.from({ length: BODIES }, () =>
      JSON.stringify({
        events: Array.from({ length: BATCH }, (_, i) => ({
          outcome_key: `never-${randomBytes(6).toString("hex")}-${i}`,
          action: "step",
        })),
      }),
    );
    const started = Date.now();
    const intervalMs = (BATCH * 1000) / this.options.deadLetterRate;
    let next = 0;
    const loop = async (): Promise<void> => {
      while (this.going) {
        const n = next++;
        const wait = started + n * intervalMs - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (!this.going) return;
        this.count(await this.call(this.token, "POST", "/v1/events/batch", bodies[n % BODIES], true));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  }

  private count(reply: { status: number; body: unknown }): void {
    this.sent.deadLetterEvents += BATCH;
    if (reply.status === 429) {
      this.sent.deadLetterRefused += BATCH;
      return;
    }
    const answer = reply.body as { accepted?: number; failed?: { reason: string }[] } | undefined;
    this.sent.deadLetterAdmitted += answer?.accepted ?? 0;
    this.sent.deadLetterRateLimited += (answer?.failed ?? []).filter((item) => item.reason === "rate_limited").length;
  }

  /** Events with a new action and a 250 KB value each, to the one open outcome, OVERSIZED_RATE a second. */
  private async oversized(): Promise<void> {
    const [head, tail] = JSON.stringify({
      outcome_key: "big",
      action: "@",
      properties: { value: "x".repeat(250_000) },
    }).split("@");
    await this.paced(OVERSIZED_RATE, async (i) => {
      await this.call(this.token, "POST", "/v1/events", `${head}grow_${i}${tail}`, true);
      this.sent.oversizedEvents++;
    });
  }

  /** Live pages of the large outcome, kept open while the flood lasts. */
  private async livePages(): Promise<void> {
    const controllers = Array.from({ length: this.options.livePages }, () => new AbortController());
    const streams = controllers.map(async (controller) => {
      const response = await fetch(`${this.visitor.base}/dashboard/outcomes/big/live`, {
        headers: { cookie: this.visitor.cookie },
        signal: controller.signal,
      });
      if (response.status !== 200 || !response.body) return;
      this.sent.liveStreams++;
      const reader = response.body.getReader();
      for (;;) if ((await reader.read()).done) return;
    });
    while (this.going) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const controller of controllers) controller.abort();
    await Promise.allSettled(streams);
  }

  /** Sign-in attempts with ever new, long emails from no account, SIGN_IN_RATE a second. */
  private async signInSpam(): Promise<void> {
    const { base } = this.visitor;
    await this.paced(SIGN_IN_RATE, async () => {
      const form = new URLSearchParams({
        email: `${randomBytes(100).toString("hex")}@example.com`,
        password: "wrong password",
      });
      const response = await fetch(`${base}/dashboard/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
        body: form.toString(),
      });
      await response.arrayBuffer();
      this.sent.signIns++;
    });
  }
}
