// Fuzzing the edge with fast-check: random JSON, random bytes, deep nesting and huge strings never crash
// the server, and every answer is a 202 or one of the spec's error codes with its status.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { request, startTestApp, type TestApp } from "./support.js";

const ALLOWED: Record<number, string | undefined> = {
  202: undefined,
  400: "VALIDATION_ERROR",
  413: "PAYLOAD_TOO_LARGE",
};
const PATHS = ["/v1/events", "/v1/events/batch"] as const;

const anyValue = fc.jsonValue({ maxDepth: 4 });
const eventLike = fc.record(
  {
    outcome_key: fc.oneof(fc.string({ maxLength: 600 }), anyValue),
    key: fc.oneof(fc.string({ maxLength: 600 }), anyValue),
    customer_key: fc.oneof(fc.string(), anyValue),
    agent_key: fc.oneof(fc.string(), anyValue),
    action: fc.oneof(fc.string({ maxLength: 200 }), anyValue),
    idempotency_key: fc.oneof(fc.string(), anyValue),
    properties: fc.oneof(
      fc.dictionary(fc.string(), anyValue),
      anyValue,
      fc.record({
        settles_at: fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.string(),
        ),
      }),
    ),
  },
  { requiredKeys: [] },
);
const deep = fc
  .record({
    depth: fc.integer({ min: 1, max: 100_000 }),
    shape: fc.constantFrom("array", "object", "in-properties"),
  })
  .map(({ depth, shape }) => {
    if (shape === "array") return "[".repeat(depth) + "]".repeat(depth);
    if (shape === "object") return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    return `{"outcome_key":"o","action":"a","properties":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
  });
const huge = fc
  .record({
    size: fc.integer({ min: 1_000, max: 300_000 }),
    field: fc.constantFrom("outcome_key", "action", "idempotency_key", "pad"),
  })
  .map(({ size, field }) => {
    const text = "x".repeat(size);
    return JSON.stringify(
      field === "pad"
        ? { outcome_key: "o", action: "a", properties: { pad: text } }
        : { outcome_key: "o", action: "a", [field]: text },
    );
  });

const bodies = fc.oneof(
  anyValue.map((v) => JSON.stringify(v)),
  eventLike.map((e) => JSON.stringify(e)),
  fc.array(eventLike, { maxLength: 8 }).map((events) => JSON.stringify({ events })),
  fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 2000 }),
  deep,
  huge,
);

describe.each(DEPLOYMENTS)("fuzzing the edge (%s)", (deployment) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(deployment);
  });
  afterAll(() => t.app.stop());

  it("answers every body with 202 or a spec error, and keeps serving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), bodies, async (path, body) => {
        const reply = await request(t.base, "POST", path, {
          token: t.token,
          raw: body,
          headers: { "content-type": "application/json" },
        });
        expect(Object.keys(ALLOWED)).toContain(String(reply.status));
        expect(reply.headers.get("x-request-id")).toBeTruthy();
        const code = ALLOWED[reply.status];
        if (code === undefined) {
          if (path === "/v1/events") expect(reply.body).toMatchObject({ accepted: true });
          else expect(reply.body).toMatchObject({ failed: [] });
        } else {
          expect((reply.body as { error: { code: string } }).error.code).toBe(code);
        }
      }),
      { numRuns: 400 },
    );
    const alive = await request(t.base, "POST", "/v1/events", {
      token: t.token,
      body: { outcome_key: "o", action: "still-alive" },
    });
    expect(alive.status).toBe(202);
  });
});
