// A small HTTP/1.1 keep-alive load generator (run as a child process by bench/ingress.ts): N connections,
// one request in flight on each, for a fixed time; prints {requests, errors, seconds, p50Ms, p99Ms} as JSON.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

interface LoadSpec {
  port: number;
  path: string;
  token: string;
  /** Request bodies, sent round-robin. */
  bodiesFile: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  expectStatus: number;
}

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const bodies = (JSON.parse(readFileSync(spec.bodiesFile, "utf8")) as string[]).map((body) =>
  Buffer.from(
    `POST ${spec.path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer ${spec.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  ),
);

let next = 0;
let measuring = false;
let stopped = false;
let requests = 0;
let errors = 0;
let latencies = new Float64Array(1 << 20);

function record(ms: number, ok: boolean): void {
  if (!measuring) return;
  if (!ok) errors++;
  if (requests === latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[requests++] = ms;
}

function drive(socket: Socket): void {
  let buffer = Buffer.alloc(0);
  let sentAt = 0;
  const send = (): void => {
    if (stopped) {
      socket.end();
      return;
    }
    sentAt = performance.now();
    socket.write(bodies[next++ % bodies.length]!);
  };
  socket.on("data", (data) => {
    buffer = buffer.length === 0 ? data : Buffer.concat([buffer, data]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString("latin1");
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? "0");
      if (buffer.length < end + 4 + length) return;
      buffer = buffer.subarray(end + 4 + length);
      const status = Number(head.slice(9, 12));
      record(performance.now() - sentAt, status === spec.expectStatus);
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

setTimeout(() => {
  measuring = true;
  const started = performance.now();
  setTimeout(() => {
    measuring = false;
    stopped = true;
    const seconds = (performance.now() - started) / 1000;
    const sorted = latencies.subarray(0, requests).sort();
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    process.stdout.write(`${JSON.stringify({ requests, errors, seconds, p50Ms: at(0.5), p99Ms: at(0.99) })}\n`);
    for (const socket of sockets) socket.destroy();
  }, spec.seconds * 1000);
}, spec.warmupSeconds * 1000);
