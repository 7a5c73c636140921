// A client that never reads a large response must not keep its socket and the response's buffer: a write
// that makes no progress for the stall limit closes the connection. A slow reader that keeps reading
// gets the whole body however long it takes.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer, type HttpServer } from "../../src/ingress/http-server.js";
import { createMetrics } from "../../src/telemetry/metrics.js";
import { silentLogger } from "../../src/telemetry/logger.js";

const BODY_BYTES = 32 * 1024 * 1024;
const STALL_MS = 400;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a connection, asks for /big and lets the caller pace the reading; counts body bytes only. */
function ask(port: number): Promise<{ socket: Socket; received: () => number; ended: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write("GET /big HTTP/1.1\r\nHost: t\r\n\r\n");
      resolve({ socket, received: () => bytes, ended });
    });
    let head = "";
    let bytes = -1;
    socket.on("data", (data: Buffer) => {
      if (bytes >= 0) {
        bytes += data.length;
        return;
      }
      head += data.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end >= 0) bytes = head.length - end - 4;
    });
    const ended = new Promise<void>((done) => socket.on("close", () => done()));
    socket.on("error", () => {});
  });
}

describe("writes to clients that stop reading", () => {
  let server: HttpServer;
  beforeAll(async () => {
    const body = "x".repeat(BODY_BYTES);
    server = await startHttpServer({
      routes: [{ method: "GET", path: "/big", handler: () => Promise.resolve({ status: 200, body }) }],
      authenticate: () => "",
      logger: silentLogger,
      metrics: createMetrics(),
      port: 0,
      writeStallMs: STALL_MS,
    });
  });
  afterAll(() => server.close());

  it("closes the connection when a large response makes no progress for the stall limit", async () => {
    const client = await ask(server.port);
    client.socket.pause();
    // Long enough past the limit that a loaded machine, slow to fill the socket and fire timers, still sees a stall.
    await sleep(STALL_MS * 10);
    client.socket.resume();
    await Promise.race([client.ended, sleep(5000)]);
    expect(client.socket.destroyed || client.socket.readableEnded).toBe(true);
    expect(client.received()).toBeLessThan(BODY_BYTES);
  });

  it("delivers the whole body to a reader that is slow but keeps reading", async () => {
    const client = await ask(server.port);
    // Read in bursts with pauses shorter than the stall limit.
    const deadline = Date.now() + 20_000;
    while (client.received() < BODY_BYTES && Date.now() < deadline) {
      client.socket.pause();
      await sleep(STALL_MS / 4);
      client.socket.resume();
      await sleep(5);
    }
    // JSON.stringify of the string adds its two quotes; nothing is sent twice or skipped.
    expect(client.received()).toBe(BODY_BYTES + 2);
    client.socket.destroy();
  });
});
