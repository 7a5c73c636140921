// The API's answers go through the one header check: a header value with CR, LF or NUL never reaches the
// wire, small or streamed body alike, and the client gets a fixed 400 on a connection that still works.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer, type HttpServer } from "../../src/ingress/http-server.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { createMetrics } from "../../src/telemetry/metrics.js";
import { RawConnection, rawRequestBytes } from "../support/raw-http.js";

describe("API answers with a header that holds CR, LF or NUL", () => {
  let server: HttpServer;
  beforeAll(async () => {
    // The header value comes from the request, as a route that echoed request text into a header would.
    const echo = (body: unknown) => (req: { query: URLSearchParams }) =>
      Promise.resolve({ status: 200, body, headers: { "X-Echo": req.query.get("v") ?? "" } });
    server = await startHttpServer({
      routes: [
        { method: "GET", path: "/small", handler: echo({ ok: true }) },
        { method: "GET", path: "/large", handler: echo("x".repeat(200_000)) },
      ],
      authenticate: () => "",
      logger: silentLogger,
      metrics: createMetrics(),
      port: 0,
    });
  });
  afterAll(() => server.close());

  it.each(["/small", "/large"])("answers %s with a fixed 400 and writes none of the value", async (path) => {
    const raw = await RawConnection.open(server.port);
    try {
      for (const bad of ["%0d%0aSet-Cookie:%20a=b", "%0aSet-Cookie:%20a=b", "%00a"]) {
        raw.write(rawRequestBytes("GET", `${path}?v=${bad}`));
        const reply = await raw.read();
        expect(reply.status).toBe(400);
        expect(reply.head).not.toMatch(/set-cookie|x-echo/i);
        expect(JSON.parse(reply.body.toString())).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
      }
      raw.write(rawRequestBytes("GET", `${path}?v=fine`));
      const fine = await raw.read();
      expect(fine.status).toBe(200);
      expect(fine.headers.get("x-echo")).toEqual(["fine"]);
    } finally {
      raw.destroy();
    }
  });
});
