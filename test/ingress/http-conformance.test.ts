// The HTTP edge as a protocol, against the real uWS server over raw sockets: framing of bodiless answers,
// keep-alive after every status, pipelining, request smuggling vectors (duplicate Content-Length, odd
// Transfer-Encoding) and what the parser underneath does with requests it cannot take (see README,
// "HTTP/1.1 at the edge").
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RawConnection, rawRequestBytes, type RawResponse } from "../support/raw-http.js";
import { startTestApp, type TestApp } from "./support.js";

const SINGLE_CAP = 256 * 1024;

const errorCode = (reply: RawResponse): string =>
  (JSON.parse(reply.body.toString()) as { error: { code: string } }).error.code;

describe("HTTP conformance of the edge (standalone)", () => {
  let t: TestApp;
  let port: number;
  const open: RawConnection[] = [];
  let auth: string;

  beforeAll(async () => {
    t = await startTestApp("standalone");
    port = t.app.port;
    auth = `Authorization: Bearer ${t.token}`;
  });
  afterAll(() => t.app.stop());
  afterEach(() => {
    for (const c of open.splice(0)) c.destroy();
  });

  const connection = async (): Promise<RawConnection> => {
    const c = await RawConnection.open(port);
    open.push(c);
    return c;
  };

  const json = (body: unknown): [string[], string] => {
    const text = JSON.stringify(body);
    return [["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(text)}`], text];
  };

  /** Sends a GET of the task list on `c` and expects it answered: the connection survived. */
  const expectAlive = async (c: RawConnection): Promise<void> => {
    c.write(rawRequestBytes("GET", "/v1/tasks", [auth]));
    const reply = await c.read();
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString())).toHaveProperty("tasks");
  };

  const send = async (
    c: RawConnection,
    method: string,
    path: string,
    headers: string[] = [],
    body = "",
  ): Promise<RawResponse> => {
    c.write(rawRequestBytes(method, path, headers, body));
    return c.read();
  };

  describe("bodiless answers and keep-alive", () => {
    it("answers 204 without a Content-Length and keeps the connection for the next request", async () => {
      const c = await connection();
      const [headers, body] = json({ name: "n", condition: "a" });
      expect((await send(c, "PUT", "/v1/tasks/gone", [auth, ...headers], body)).status).toBe(201);
      const deleted = await send(c, "DELETE", "/v1/tasks/gone", [auth]);
      expect(deleted.status).toBe(204);
      expect(deleted.headers.has("content-length")).toBe(false);
      expect(deleted.headers.has("transfer-encoding")).toBe(false);
      expect(deleted.headers.get("x-request-id")).toHaveLength(1);
      await expectAlive(c);
      expect(c.pending.length).toBe(0);
    });

    it("keeps the connection after each status the API answers with", async () => {
      const [taskHeaders, taskBody] = json({ name: "n", condition: "a" });
      const [eventHeaders, eventBody] = json({ key: "k", customer_key: "c", action: "a" });
      const cases: [number, string, string, string[], string][] = [
        [200, "GET", "/v1/tasks", [auth], ""],
        [201, "PUT", "/v1/tasks/alive", [auth, ...taskHeaders], taskBody],
        [202, "POST", "/v1/events", [auth, ...eventHeaders], eventBody],
        [400, "POST", "/v1/events", [auth, "Content-Length: 1"], "{"],
        [401, "GET", "/v1/tasks", [], ""],
        [404, "GET", "/nowhere", [], ""],
        [404, "GET", "/v1/tasks/never-made", [auth], ""],
        [405, "PATCH", "/v1/events", [auth], ""],
      ];
      for (const [status, method, path, headers, body] of cases) {
        const c = await connection();
        const reply = await send(c, method, path, headers, body);
        expect(reply.status, `${method} ${path}`).toBe(status);
        await expectAlive(c);
      }
    });

    it("keeps the connection after a 413 whose whole body was sent", async () => {
      const c = await connection();
      const body = "x".repeat(SINGLE_CAP + 1);
      const reply = await send(c, "POST", "/v1/events", [auth, `Content-Length: ${body.length}`], body);
      expect(reply.status).toBe(413);
      await expectAlive(c);
    });

    it("closes after a 413 whose declared body is more than twice the cap, rather than skip it all", async () => {
      const c = await connection();
      c.write(rawRequestBytes("POST", "/v1/events", [auth, `Content-Length: ${2 * SINGLE_CAP + 1}`], "{"));
      expect((await c.read()).status).toBe(413);
      expect(await c.waitClosed()).toBe(true);
    });

    it("keeps the connection after a response large enough to be written as the client reads", async () => {
      const c = await connection();
      const [headers, body] = json({ name: "n".repeat(500), condition: "a", goal: "g".repeat(4000) });
      for (let i = 0; i < 40; i++)
        expect((await send(c, "PUT", `/v1/tasks/big-${i}`, [auth, ...headers], body)).status).toBe(201);
      const list = await send(c, "GET", "/v1/tasks", [auth]);
      expect(list.status).toBe(200);
      expect(list.body.length).toBeGreaterThan(64 * 1024);
      expect((JSON.parse(list.body.toString()) as { tasks: unknown[] }).tasks.length).toBeGreaterThanOrEqual(40);
      await expectAlive(c);
    });

    it("answers an HTTP/1.1 request carrying Connection: close and then closes", async () => {
      const c = await connection();
      const reply = await send(c, "GET", "/v1/tasks", [auth, "Connection: close"]);
      expect(reply.status).toBe(200);
      expect(await c.waitClosed()).toBe(true);
    });
  });

  describe("pipelining", () => {
    it("answers requests written in one go in order when each is answered at once", async () => {
      const c = await connection();
      c.write(
        rawRequestBytes("GET", "/nowhere") +
          rawRequestBytes("PATCH", "/v1/events", [auth]) +
          rawRequestBytes("GET", "/v1/tasks", ["Authorization: Bearer nope"]) +
          rawRequestBytes("GET", "/v2/x"),
      );
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await c.read()).status);
      expect(statuses).toEqual([404, 405, 401, 404]);
      await expectAlive(c);
    });
  });

  describe("framing that could smuggle a request", () => {
    it("refuses two Content-Length headers with 400 and closes", async () => {
      for (const [first, second] of [
        ["5", "0"],
        ["2", "2"],
      ]) {
        const c = await connection();
        c.write(
          rawRequestBytes("POST", "/v1/events", [auth, `Content-Length: ${first}`, `Content-Length: ${second}`], "{}"),
        );
        const reply = await c.read();
        expect(reply.status, `${first}/${second}`).toBe(400);
        expect(errorCode(reply)).toBe("VALIDATION_ERROR");
        expect(await c.waitClosed()).toBe(true);
      }
    });

    it("refuses duplicate lengths before the route and the token are looked at", async () => {
      for (const path of ["/nowhere", "/v1/events"]) {
        const c = await connection();
        c.write(rawRequestBytes("POST", path, ["Content-Length: 0", "Content-Length: 0"]));
        const reply = await c.read();
        expect(reply.status, path).toBe(400);
        expect(await c.waitClosed()).toBe(true);
      }
    });

    it("refuses a Transfer-Encoding other than exactly chunked with 400 and closes", async () => {
      for (const coding of ["gzip, chunked", "chunked, chunked", "identity", "xchunked"]) {
        const c = await connection();
        c.write(rawRequestBytes("POST", "/v1/events", [auth, `Transfer-Encoding: ${coding}`], "0\r\n\r\n"));
        const reply = await c.read();
        expect(reply.status, coding).toBe(400);
        expect(errorCode(reply)).toBe("VALIDATION_ERROR");
        expect(await c.waitClosed()).toBe(true);
      }
    });

    it("still takes a chunked body", async () => {
      const c = await connection();
      const body = JSON.stringify({ key: "k", customer_key: "c", action: "a" });
      const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      const reply = await send(c, "POST", "/v1/events", [auth, "Transfer-Encoding: chunked"], chunked);
      expect(reply.status).toBe(202);
      await expectAlive(c);
    });
  });

  // What uWebSockets.js 20.30 does below our code, pinned so a dependency change that alters it is seen
  // (and the README's account of it revisited): the request never reaches a handler, so we cannot answer.
  describe("requests the uWS parser drops before any handler (documented limits)", () => {
    const droppedSilently = async (bytes: string): Promise<void> => {
      const c = await connection();
      c.write(bytes);
      await expect(c.read(500)).rejects.toThrow();
    };

    it("does not answer HTTP/1.0 on the API port", async () => {
      await droppedSilently(rawRequestBytes("GET", "/v1/tasks", [auth], "", "HTTP/1.0"));
    });

    it("does not answer a header with a NUL byte", async () => {
      await droppedSilently(rawRequestBytes("GET", "/v1/tasks", [auth, "X-Odd: a\u0000b"]));
    });

    it("closes the connection on headers over 4 KiB that arrive in two reads", async () => {
      const c = await connection();
      const bytes = rawRequestBytes("GET", "/v1/tasks", [auth, `X-Big: ${"a".repeat(5000)}`]);
      c.write(bytes.slice(0, 20));
      await new Promise((resolve) => setTimeout(resolve, 50));
      c.write(bytes.slice(20));
      expect(await c.waitClosed()).toBe(true);
    });

    it("closes the connection when a second request arrives while the first is still being answered", async () => {
      const c = await connection();
      c.write(rawRequestBytes("GET", "/v1/tasks", [auth]) + rawRequestBytes("GET", "/v1/tasks", [auth]));
      expect(await c.waitClosed()).toBe(true);
    });
  });
});
