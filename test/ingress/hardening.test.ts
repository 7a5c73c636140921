// Requests that once broke the API (issue 15): garbage and out-of-range cursors and ids, values past the
// ranges the service can represent, unknown fields, malformed Unicode and over-long path keys. Each is
// refused with 400 VALIDATION_ERROR (or 404 for an id that cannot exist), never a 500 or a silent change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request, startTestApp, type Reply, type TestApp } from "./support.js";

const errorCode = (reply: Reply): string | undefined => (reply.body as { error?: { code: string } } | undefined)?.error?.code;

const b64 = (text: string): string => Buffer.from(text).toString("base64url");

describe("hardening of the API (standalone)", () => {
  let t: TestApp;
  const call = (method: string, path: string, body?: unknown): Promise<Reply> =>
    request(t.base, method, path, { token: t.token, ...(body !== undefined && { body }) });

  beforeAll(async () => {
    t = await startTestApp("standalone");
    // Two of each so every list has a next page to follow.
    for (const key of ["a", "b"]) {
      expect((await call("PUT", `/v1/tasks/t${key}`, { name: "n", condition: "done" })).status).toBe(201);
      expect((await call("PUT", `/v1/agents/ag${key}`, { name: "n", condition: "done" })).status).toBe(201);
      expect((await call("PUT", `/v1/customers/c${key}`, { name: "n" })).status).toBe(201);
      expect((await call("PUT", `/v1/rate-cards/r${key}`, { currency: "USD", entries: [] })).status).toBe(201);
      expect((await call("POST", "/v1/outcomes", { key: `o${key}`, task_key: "ta" })).status).toBe(201);
    }
  });
  afterAll(() => t.app.stop());

  describe("cursors and stream ids", () => {
    const lists = ["/v1/outcomes", "/v1/agents", "/v1/customers", "/v1/rate-cards", "/v1/dlq", "/v1/charges", "/v1/outcomes/oa/events"];
    const garbage = [
      "garbage",
      "!!!",
      "YWJj",
      b64("0-99999999999999999999-0"),
      b64("0-18446744073709551615-18446744073709551615"),
      b64("99-1-0"),
      "99999999999999999999-0",
      "18446744073709551615-18446744073709551615",
      "1-0x",
      `${b64("tasks\nx")}==`,
    ];

    it.each(lists)("answers a garbage or out-of-range cursor on %s with 400 VALIDATION_ERROR", async (list) => {
      for (const cursor of garbage) {
        const reply = await call("GET", `${list}?cursor=${encodeURIComponent(cursor)}`);
        expect([reply.status, errorCode(reply)], `${list} cursor=${cursor}`).toEqual([400, "VALIDATION_ERROR"]);
      }
    });

    it("follows the cursors every list hands out", async () => {
      for (const [list, field] of [["/v1/outcomes", "outcomes"], ["/v1/agents", "agents"], ["/v1/customers", "customers"], ["/v1/rate-cards", "rate_cards"]] as const) {
        const first = (await call("GET", `${list}?limit=1`)).body as Record<string, unknown[]> & { next_cursor: string };
        expect(first[field], list).toHaveLength(1);
        expect(typeof first.next_cursor, list).toBe("string");
        const second = await call("GET", `${list}?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`);
        expect(second.status, list).toBe(200);
        const page = second.body as Record<string, unknown[]> & { next_cursor: string | null };
        expect(page[field], list).toHaveLength(1);
        expect(page[field]![0], list).not.toEqual(first[field]![0]);
        expect(page.next_cursor, list).toBeNull();
      }
    });

    it("refuses another list's cursor", async () => {
      const agents = (await call("GET", "/v1/agents?limit=1")).body as { next_cursor: string };
      const reply = await call("GET", `/v1/customers?cursor=${encodeURIComponent(agents.next_cursor)}`);
      expect([reply.status, errorCode(reply)]).toEqual([400, "VALIDATION_ERROR"]);
    });

    it("answers a replay of a dead letter id that cannot exist with 404", async () => {
      for (const id of ["0-99999999999999999999-0", "0-18446744073709551615-18446744073709551615", "999-1-0", "x", "00-1-0"]) {
        const reply = await call("POST", `/v1/dlq/${encodeURIComponent(id)}/replay`);
        expect([reply.status, errorCode(reply)], id).toEqual([404, "DEAD_LETTER_NOT_FOUND"]);
      }
    });
  });
});
