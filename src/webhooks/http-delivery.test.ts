// One delivery attempt against a real HTTP server on 127.0.0.1: the connection goes to the checked
// address whatever the host name (no DNS), redirects are not followed, the answer is cut at 1 KiB,
// Retry-After is read, and a receiver that does not answer times out.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "./http-delivery.js";

describe("postWebhook", () => {
  let server: Server;
  let port: number;
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        seen.push({ url: req.url ?? "", headers: req.headers, body });
        if (req.url === "/silent") return;
        if (req.url === "/large") return void res.writeHead(200).end("é".repeat(5000));
        if (req.url === "/moved") return void res.writeHead(302, { location: "http://127.0.0.1:9/elsewhere" }).end();
        res.writeHead(429, { "retry-after": "7" }).end("slow down");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const target = (path: string, host: string) => ({
    url: new URL(`http://${host}:${port}${path}`),
    address: "127.0.0.1",
    family: 4 as const,
  });

  it("connects to the checked address, not to what the host name resolves to", async () => {
    const result = await postWebhook(
      target("/hook", "receiver.invalid"),
      { "content-type": "application/json", "webhook-id": "msg_1" },
      '{"a":1}',
      5000,
    );
    expect(result).toMatchObject({ status: 429, error: null, response: "slow down", retryAfterMs: 7000 });
    const request = seen.find((r) => r.url === "/hook")!;
    expect(request.body).toBe('{"a":1}');
    expect(request.headers.host).toBe(`receiver.invalid:${port}`);
    expect(request.headers["webhook-id"]).toBe("msg_1");
  });

  it("keeps the first KiB of the answer and does not follow redirects", async () => {
    const large = await postWebhook(target("/large", "127.0.0.1"), {}, "{}", 5000);
    expect(large.status).toBe(200);
    expect(Buffer.byteLength(large.response)).toBeLessThanOrEqual(1024);
    expect(large.response.startsWith("éé")).toBe(true);
    const moved = await postWebhook(target("/moved", "127.0.0.1"), {}, "{}", 5000);
    expect(moved.status).toBe(302);
    expect(seen.some((r) => r.url === "/elsewhere")).toBe(false);
  });

  it("gives up on a receiver that does not answer within the timeout", async () => {
    const result = await postWebhook(target("/silent", "127.0.0.1"), {}, "{}", 300);
    expect(result).toMatchObject({ status: null, error: "timed out after 300 ms" });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
  });

  it("reports a refused connection as a network error", async () => {
    const result = await postWebhook(
      { url: new URL("http://nothing.invalid:9/"), address: "127.0.0.1", family: 4 },
      {},
      "{}",
      5000,
    );
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED 127\.0\.0\.1:9/);
  });
});
