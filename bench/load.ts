// A small HTTP/1.1 keep-alive load generator, run as a child process by the benchmarks: N connections, one
// request in flight on each. Three ways to stop and pace:
// - closed loop for a fixed time after a warm-up (the default): as fast as the server answers;
// - `maxRequests`: sends exactly that many requests and stops once all are answered (a fixed amount of work);
// - `ratePerSecond`: open-loop pacing, request i is not sent before start + i / rate (a fixed load).
// Prints {requests, errors, seconds, p50Ms, p99Ms, startedAtMs, endedAtMs} as JSON; the two times are on
// the `performance.timeOrigin + performance.now()` clock, comparable across processes of this machine.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

export interface LoadSpec {
  port: number;
  path: string;
  token: string;
  /** Request bodies, sent round-robin: a JSON array of strings (base64 ones when `contentType` is binary). */
  bodiesFile: string;
  /** The bodies' Content-Type (default application/json); application/x-protobuf bodies are base64 in the file. */
  contentType?: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  expectStatus: number;
  /** A response must also contain this text to count as a success (e.g. `"failed":[]`). */
  expectBody?: string;
  /** Send exactly this many requests (no warm-up), then stop once all are answered. */
  maxRequests?: number;
  /** Pace requests to this many per second over all connections. */
  ratePerSecond?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** When the first measured request was sent and the last measured answer arrived (epoch-like ms). */
  startedAtMs: number;
  endedAtMs: number;
}

const now = (): number => performance.timeOrigin + performance.now();

function main(spec: LoadSpec): void {
  const contentType = spec.contentType ?? "application/json";
  const binary = contentType === "application/x-protobuf";
  const bodies = (JSON.parse(readFileSync(spec.bodiesFile, "utf8")) as string[]).map((text) => {
    const body = binary ? Buffer.from(text, "base64") : Buffer.from(text);
    const head = `POST ${spec.path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer ${spec.token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`;
    return Buffer.concat([Buffer.from(head), body]);
  });
  const counted = spec.maxRequests !== undefined;

  let next = 0;
  let measuring = counted;
  let stopped = false;
  let requests = 0;
  let errors = 0;
  let startedAtMs = 0;
  let endedAtMs = 0;
  let latencies = new Float64Array(1 << 20);
  const pacedFrom = now();

  function record(ms: number, ok: boolean): void {
    if (!measuring) return;
    if (!ok) errors++;
    if (requests === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[requests++] = ms;
    endedAtMs = now();
  }

  function finish(): void {
    if (!counted) endedAtMs = now();
    measuring = false;
    stopped = true;
    const seconds = (endedAtMs - startedAtMs) / 1000;
    const sorted = latencies.subarray(0, requests).sort();
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const result: LoadResult = { requests, errors, seconds, p50Ms: at(0.5), p99Ms: at(0.99), startedAtMs, endedAtMs };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    for (const socket of sockets) socket.destroy();
  }

  function drive(socket: Socket): void {
    let buffer = Buffer.alloc(0);
    let sentAt = 0;
    const transmit = (index: number): void => {
      sentAt = now();
      if (measuring && startedAtMs === 0) startedAtMs = sentAt;
      socket.write(bodies[index % bodies.length]!);
    };
    const send = (): void => {
      if (stopped || (counted && next >= spec.maxRequests!)) {
        socket.end();
        return;
      }
      const index = next++;
      if (spec.ratePerSecond === undefined) return transmit(index);
      const due = pacedFrom + (index * 1000) / spec.ratePerSecond;
      const wait = due - now();
      if (wait <= 0) transmit(index);
      else setTimeout(() => (stopped ? socket.end() : transmit(index)), wait);
    };
    socket.on("data", (data) => {
      buffer = buffer.length === 0 ? data : Buffer.concat([buffer, data]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? "0");
        if (buffer.length < end + 4 + length) return;
        const ok =
          Number(head.slice(9, 12)) === spec.expectStatus &&
          (spec.expectBody === undefined || buffer.subarray(end + 4, end + 4 + length).includes(spec.expectBody));
        buffer = buffer.subarray(end + 4 + length);
        record(now() - sentAt, ok);
        if (counted && requests === spec.maxRequests) return finish();
        send();
      }
    });
    socket.on("error", () => {});
    send();
  }

  const sockets: Socket[] = [];
  for (let i = 0; i < spec.connections; i++) {
    const socket = connect(spec.port, "127.0.0.1");
    socket.setNoDelay(true);
    socket.on("connect", () => drive(socket));
    sockets.push(socket);
  }

  if (counted) return;
  setTimeout(() => {
    measuring = true;
    startedAtMs = now();
    setTimeout(finish, spec.seconds * 1000);
  }, spec.warmupSeconds * 1000);
}

main(JSON.parse(process.argv[2] ?? "{}") as LoadSpec);
