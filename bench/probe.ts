// Read-after-write prober, run as a child process by bench/run.ts (the k6 read-after-write scenario in
// Node): P probes, each owning one already-open Variant A outcome and one keep-alive connection. Every
// `intervalMs` a probe sends one event (POST /v1/events), notes when its 202 arrived, then reads
// GET /v1/outcomes/{key} at once and every `pollMs` until `observations.<action>.count` shows the event.
// Prints {count, notVisible, errors, p50Ms, p99Ms, maxMs, polls} as JSON; times are from the 202 to the
// answer of the first GET that showed the event (an upper bound: it includes that GET's round trip).
import { connect, type Socket } from "node:net";

interface ProbeSpec {
  port: number;
  token: string;
  keys: string[];
  action: string;
  intervalMs: number;
  pollMs: number;
  seconds: number;
  warmupSeconds: number;
  timeoutMs: number;
}

export interface ProbeResult {
  count: number;
  notVisible: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** GETs per event, on average. */
  polls: number;
}

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** One keep-alive HTTP/1.1 connection, one request at a time. */
class Connection {
  private buffer = Buffer.alloc(0);
  private waiting: ((answer: { status: number; body: string }) => void) | undefined;
  private readonly socket: Socket;
  readonly ready: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve) => this.socket.once("connect", () => resolve()));
    this.socket.on("error", () => {});
    this.socket.on("data", (data) => {
      this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString("latin1");
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? "0");
      if (this.buffer.length < end + 4 + length) return;
      const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
      this.buffer = this.buffer.subarray(end + 4 + length);
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve?.({ status: Number(head.slice(9, 12)), body });
    });
  }

  request(method: string, path: string, token: string, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      const length =
        body === undefined ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
      this.socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer ${token}\r\n${length}\r\n${body ?? ""}`,
      );
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

async function main(spec: ProbeSpec): Promise<void> {
  const started = now();
  const measureFrom = started + spec.warmupSeconds * 1000;
  const stopAt = measureFrom + spec.seconds * 1000;
  const latencies: number[] = [];
  let notVisible = 0;
  let errors = 0;
  let polls = 0;

  const probe = async (key: string, offsetMs: number): Promise<void> => {
    const connection = new Connection(spec.port);
    await connection.ready;
    const body = JSON.stringify({ outcome_key: key, action: spec.action });
    const path = `/v1/outcomes/${encodeURIComponent(key)}`;
    let sent = 0;
    for (let slot = started + offsetMs; slot < stopAt; slot += spec.intervalMs) {
      await sleep(slot - now());
      const posted = await connection.request("POST", "/v1/events", spec.token, body);
      if (posted.status !== 202) {
        errors++;
        continue;
      }
      sent++;
      const acceptedAt = now();
      const measured = acceptedAt >= measureFrom;
      for (let poll = 0; ; poll++) {
        const read = await connection.request("GET", path, spec.token);
        if (measured) polls++;
        const seen =
          read.status === 200 &&
          ((JSON.parse(read.body) as { observations?: Record<string, { count?: number }> }).observations?.[spec.action]
            ?.count ?? 0) >= sent;
        if (seen) {
          if (measured) latencies.push(now() - acceptedAt);
          break;
        }
        if (now() - acceptedAt > spec.timeoutMs) {
          if (measured) notVisible++;
          break;
        }
        await sleep(spec.pollMs);
      }
    }
    connection.close();
  };

  await Promise.all(spec.keys.map((key, i) => probe(key, (i * spec.intervalMs) / spec.keys.length)));
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const result: ProbeResult = {
    count: latencies.length,
    notVisible,
    errors,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: latencies[latencies.length - 1] ?? 0,
    polls: polls / Math.max(1, latencies.length + notVisible),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(JSON.parse(process.argv[2] ?? "{}") as ProbeSpec).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
