// The HTTP edge against the spec: every error code and status, the order of checks, the body caps exactly at
// and one byte past each limit (with and without Content-Length), and the error body shape.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../src/auth/token.js";
import { DEPLOYMENTS } from "../support/redis.js";
import {
  batchOfSize,
  chunked,
  eventOfSize,
  post,
  rawRequest,
  request,
  startTestApp,
  type Reply,
  type TestApp,
} from "./support.js";

const SINGLE_CAP = 256 * 1024;
const BATCH_CAP = 5 * 1024 * 1024;

function expectError(
  reply: Reply,
  status: number,
  code: string,
): { code: string; message: string; details?: { path: string; message: string }[]; request_id: string } {
  expect(reply.status).toBe(status);
  const body = reply.body as {
    error: { code: string; message: string; details?: { path: string; message: string }[]; request_id: string };
  };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.request_id).toBe(reply.headers.get("x-request-id"));
  for (const key of Object.keys(body.error)) expect(["code", "message", "details", "request_id"]).toContain(key);
  return body.error;
}

const variantA = { outcome_key: "o-1", action: "reviewed" };
const variantB = { key: "o-2", customer_key: "cust", action: "started" };

describe.each(DEPLOYMENTS)("HTTP edge (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(() => t.app.stop());

  describe("routes", () => {
    it("answers 404 NOT_FOUND for unknown routes, before checking the token", async () => {
      for (const path of ["/", "/v1", "/v1/nope", "/v1/events/batch/x", "/v2/events"]) {
        const reply = await request(t.base, "POST", path, { body: variantA });
        expectError(reply, 404, "NOT_FOUND");
      }
    });

    it("answers 405 METHOD_NOT_ALLOWED with Allow for a known path and wrong method", async () => {
      for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
        const reply = await request(t.base, method, "/v1/events", { token: t.token });
        expectError(reply, 405, "METHOD_NOT_ALLOWED");
        expect(reply.headers.get("allow")).toBe("POST");
      }
    });

    it("puts X-Request-Id on every response and echoes a sane client id", async () => {
      const ok = await post(t.base, "/v1/events", t.token, variantB);
      expect(ok.status).toBe(202);
      expect(ok.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      const echoed = await request(t.base, "POST", "/v1/events", {
        token: t.token,
        body: variantB,
        headers: { "x-request-id": "client-123" },
      });
      expect(echoed.headers.get("x-request-id")).toBe("client-123");
      const notFound = await request(t.base, "GET", "/nowhere");
      expect(notFound.headers.get("x-request-id")).toBeTruthy();
    });
  });

  describe("tokens (401 TOKEN_INVALID)", () => {
    it("refuses a missing header, another scheme, a bad signature and malformed tokens", async () => {
      const cases: Record<string, string | undefined> = {
        missing: undefined,
        basic: `Basic ${Buffer.from("a:b").toString("base64")}`,
        "bearer without token": "Bearer ",
        "bad signature": `Bearer ${t.token.slice(0, -2)}${t.token.endsWith("AA") ? "BB" : "AA"}`,
        malformed: "Bearer not-a-token",
        "extra part": `Bearer ${t.token}.x`,
        "other secret": `Bearer ${signToken("another-secret-of-enough-length", { accountId: t.accountId, generation: 1 })}`,
        "unknown account": `Bearer ${signToken(t.options.tokenSecret, { accountId: "acct_nobody", generation: 1 })}`,
        "future generation": `Bearer ${signToken(t.options.tokenSecret, { accountId: t.accountId, generation: 2 })}`,
      };
      for (const [name, authorization] of Object.entries(cases)) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const reply = await request(t.base, "POST", "/v1/events", { body: variantA, headers });
        expect(reply.status, name).toBe(401);
        expectError(reply, 401, "TOKEN_INVALID");
        expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
      }
    });

    it("checks the token before the size and the body", async () => {
      const big = await request(t.base, "POST", "/v1/events", { raw: eventOfSize(SINGLE_CAP + 1) });
      expectError(big, 401, "TOKEN_INVALID");
      const broken = await request(t.base, "POST", "/v1/events", { raw: "{not json" });
      expectError(broken, 401, "TOKEN_INVALID");
    });

    it("accepts the scheme case-insensitively", async () => {
      const reply = await request(t.base, "POST", "/v1/events", {
        body: variantA,
        headers: { authorization: `bearer ${t.token}` },
      });
      expect(reply.status).toBe(202);
    });
  });

  describe("validation (400 VALIDATION_ERROR)", () => {
    it("refuses malformed JSON and an empty body", async () => {
      for (const raw of ["{", "nope", '{"a":1}x', ""]) {
        const reply = await request(t.base, "POST", "/v1/events", { token: t.token, raw });
        expectError(reply, 400, "VALIDATION_ERROR");
      }
    });

    const single: [string, unknown, string][] = [
      ["A without action", { outcome_key: "o" }, "action"],
      ["A with empty outcome_key", { outcome_key: "", action: "a" }, "outcome_key"],
      ["A with numeric outcome_key", { outcome_key: 7, action: "a" }, "outcome_key"],
      ["A with a 513-char outcome_key", { outcome_key: "k".repeat(513), action: "a" }, "outcome_key"],
      ["A with a 129-char action", { outcome_key: "o", action: "a".repeat(129) }, "action"],
      ["A with an empty action", { outcome_key: "o", action: "" }, "action"],
      ["A with an empty idempotency_key", { outcome_key: "o", action: "a", idempotency_key: "" }, "idempotency_key"],
      [
        "A with a 513-char idempotency_key",
        { outcome_key: "o", action: "a", idempotency_key: "i".repeat(513) },
        "idempotency_key",
      ],
      ["both outcome_key and key", { outcome_key: "o", key: "o", customer_key: "c", action: "a" }, "key"],
      ["B without key", { customer_key: "c", action: "a" }, "key"],
      ["B without customer_key", { key: "o", action: "a" }, "customer_key"],
      ["B without action", { key: "o", customer_key: "c" }, "action"],
      ["B with empty agent_key", { key: "o", customer_key: "c", action: "a", agent_key: "" }, "agent_key"],
      ["B with empty customer_key", { key: "o", customer_key: "", action: "a" }, "customer_key"],
      ["properties not an object", { key: "o", customer_key: "c", action: "a", properties: [1] }, "properties"],
      ["properties null", { key: "o", customer_key: "c", action: "a", properties: null }, "properties"],
      [
        "settles_at not a datetime",
        { outcome_key: "o", action: "a", properties: { settles_at: "tomorrow" } },
        "properties.settles_at",
      ],
      [
        "settles_at a number",
        { outcome_key: "o", action: "a", properties: { settles_at: 17 } },
        "properties.settles_at",
      ],
      ["an unknown field", { outcome_key: "o", action: "a", idempotencyKey: "x" }, "idempotencyKey"],
      ["an array body", [variantA], "$"],
      ["a string body", "event", "$"],
    ];
    it.each(single)("single event: %s", async (_name, body, path) => {
      const reply = await post(t.base, "/v1/events", t.token, body);
      const error = expectError(reply, 400, "VALIDATION_ERROR");
      expect(error.details?.map((d) => d.path)).toContain(path);
    });

    it("accepts the limits themselves: 512-char keys, 128-char actions, an ISO settles_at", async () => {
      const reply = await post(t.base, "/v1/events", t.token, {
        key: "k".repeat(512),
        customer_key: "c".repeat(512),
        agent_key: "a".repeat(512),
        idempotency_key: "i".repeat(512),
        action: "x".repeat(128),
        properties: { settles_at: "2030-01-02T03:04:05.678Z", value: { nested: [1, 2, 3] } },
      });
      expect(reply.status).toBe(202);
    });

    it("refuses properties nested deeper than the limit", async () => {
      let deep: unknown = 1;
      for (let i = 0; i < 40; i++) deep = { d: deep };
      const reply = await post(t.base, "/v1/events", t.token, { outcome_key: "o", action: "a", properties: deep });
      expect(expectError(reply, 400, "VALIDATION_ERROR").details?.[0]?.path).toBe("properties");
    });

    it("batch: refuses an empty array, 501 events, a missing array; points at the failing item", async () => {
      expectError(await post(t.base, "/v1/events/batch", t.token, { events: [] }), 400, "VALIDATION_ERROR");
      const over = await post(t.base, "/v1/events/batch", t.token, {
        events: Array.from({ length: 501 }, () => variantA),
      });
      expect(expectError(over, 400, "VALIDATION_ERROR").details?.[0]?.path).toBe("events");
      expectError(await post(t.base, "/v1/events/batch", t.token, {}), 400, "VALIDATION_ERROR");
      expectError(await post(t.base, "/v1/events/batch", t.token, [variantA]), 400, "VALIDATION_ERROR");

      const events: unknown[] = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? variantA : variantB));
      events[12] = { outcome_key: "o", action: "" };
      events[15] = { key: "o", action: "a" };
      const reply = await post(t.base, "/v1/events/batch", t.token, { events });
      const error = expectError(reply, 400, "VALIDATION_ERROR");
      expect(error.details).toEqual([
        { path: "events[12].action", message: expect.any(String) as string },
        { path: "events[15].customer_key", message: expect.any(String) as string },
      ]);
    });

    it("batch: accepts exactly 500 events", async () => {
      const reply = await post(t.base, "/v1/events/batch", t.token, {
        events: Array.from({ length: 500 }, () => variantB),
      });
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual({ accepted: 500, failed: [], duplicates: [] });
    });
  });

  describe("size caps (413 PAYLOAD_TOO_LARGE)", () => {
    const head = (path: string, framing: string): string =>
      `POST ${path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\n${framing}`;
    const caps: [string, string, number, (n: number) => Buffer][] = [
      ["single", "/v1/events", SINGLE_CAP, (n) => eventOfSize(n)],
      ["batch", "/v1/events/batch", BATCH_CAP, (n) => batchOfSize(n)],
    ];

    describe.each(caps)("%s", (_name, path, cap, bodyOf) => {
      it("accepts a body of exactly the cap, with Content-Length", async () => {
        const body = bodyOf(cap);
        expect(body.length).toBe(cap);
        const reply = await rawRequest(t.app.port, head(path, `Content-Length: ${body.length}`), [body]);
        expect(reply.status).toBe(202);
      });

      it("refuses one byte past the cap from Content-Length alone, before any body byte", async () => {
        const body = bodyOf(cap + 1);
        const reply = await rawRequest(t.app.port, head(path, `Content-Length: ${body.length}`), [body], true);
        expect(reply.status).toBe(413);
        expect((JSON.parse(reply.body) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
      });

      it("accepts a body of exactly the cap without Content-Length (chunked)", async () => {
        const reply = await rawRequest(t.app.port, head(path, "Transfer-Encoding: chunked"), chunked(bodyOf(cap)));
        expect(reply.status).toBe(202);
      });

      it("refuses one byte past the cap without Content-Length, counting bytes as they arrive", async () => {
        const reply = await rawRequest(
          t.app.port,
          head(path, "Transfer-Encoding: chunked"),
          chunked(bodyOf(cap + 1)),
          true,
        );
        expect(reply.status).toBe(413);
        expect((JSON.parse(reply.body) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
      });
    });

    it("applies the single cap to /v1/events even when the batch cap would allow it", async () => {
      const reply = await request(t.base, "POST", "/v1/events", { token: t.token, raw: eventOfSize(SINGLE_CAP + 1) });
      expectError(reply, 413, "PAYLOAD_TOO_LARGE");
    });
  });
});
