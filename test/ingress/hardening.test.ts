// Requests that once broke the API (issue 15): garbage and out-of-range cursors and ids, values past the
// ranges the service can represent, unknown fields, malformed Unicode and over-long path keys. Each is
// refused with 400 VALIDATION_ERROR (or 404 for an id that cannot exist), never a 500 or a silent change.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request, startTestApp, type Reply, type TestApp } from "./support.js";

const errorCode = (reply: Reply): string | undefined =>
  (reply.body as { error?: { code: string } } | undefined)?.error?.code;

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
    const lists = [
      "/v1/outcomes",
      "/v1/agents",
      "/v1/customers",
      "/v1/rate-cards",
      "/v1/dlq",
      "/v1/charges",
      "/v1/outcomes/oa/events",
    ];
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
      for (const [list, field] of [
        ["/v1/outcomes", "outcomes"],
        ["/v1/agents", "agents"],
        ["/v1/customers", "customers"],
        ["/v1/rate-cards", "rate_cards"],
      ] as const) {
        const first = (await call("GET", `${list}?limit=1`)).body as Record<string, unknown[]> & {
          next_cursor: string;
        };
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
      for (const id of [
        "0-99999999999999999999-0",
        "0-18446744073709551615-18446744073709551615",
        "999-1-0",
        "x",
        "00-1-0",
      ]) {
        const reply = await call("POST", `/v1/dlq/${encodeURIComponent(id)}/replay`);
        expect([reply.status, errorCode(reply)], id).toEqual([404, "DEAD_LETTER_NOT_FOUND"]);
      }
    });
  });

  describe("values the service cannot represent", () => {
    const refused = async (method: string, path: string, body: unknown, field: string): Promise<void> => {
      const reply = await call(method, path, body);
      expect([reply.status, errorCode(reply)], `${path} ${JSON.stringify(body).slice(0, 120)}`).toEqual([
        400,
        "VALIDATION_ERROR",
      ]);
      const details = (reply.body as { error: { details?: { path: string }[] } }).error.details ?? [];
      expect(
        details.map((d) => d.path),
        JSON.stringify(body).slice(0, 120),
      ).toContain(field);
    };

    it("refuses settlement periods over 10 years on tasks and agents, and IDLE windows over 10 years", async () => {
      for (const period of ["99999999d", "3651d", "522w", "P3651D"]) {
        await refused(
          "PUT",
          "/v1/tasks/bigsp",
          { name: "c", condition: "a", settlement_period: period },
          "settlement_period",
        );
        await refused(
          "PUT",
          "/v1/agents/bigsp",
          { name: "c", condition: "a", settlement_period: period },
          "settlement_period",
        );
      }
      await refused("PUT", "/v1/tasks/bigidle", { name: "c", condition: "IDLE(3651d)" }, "condition");
      expect(
        (await call("PUT", "/v1/tasks/tensp", { name: "c", condition: "a", settlement_period: "3650d" })).status,
      ).toBe(201);
      const opened = await call("POST", "/v1/outcomes", { key: "tensp-1", task_key: "tensp" });
      expect(opened.status).toBe(201);
      expect((await call("GET", "/v1/outcomes/tensp-1")).status).toBe(200);
      expect((await call("GET", "/v1/outcomes")).status).toBe(200);
    });

    const badInstants = [
      "1969-12-31T23:59:59Z",
      "1970-01-01T00:30:00+01:00",
      "+010000-01-01T00:00:00Z",
      "10000-01-01T00:00:00Z",
      "2030-02-31T00:00:00Z",
      "2030-02-29T00:00:00Z",
      "2030-13-01T00:00:00Z",
      "2030-01-01T24:00:00Z",
      "2030-01-01T23:60:00Z",
      "2030-01-01T00:00:60Z",
      "2030-02-31",
      "2030-01-01T00:00:00+24:00",
    ];

    it("refuses instants outside 1970..9999 or of impossible dates at every input", async () => {
      for (const instant of badInstants) {
        await refused("POST", "/v1/outcomes", { key: "when", task_key: "ta", settles_at: instant }, "settles_at");
        await refused(
          "POST",
          "/v1/events",
          { outcome_key: "oa", action: "x", properties: { settles_at: instant } },
          "properties.settles_at",
        );
        await refused(
          "POST",
          "/v1/events/batch",
          { events: [{ outcome_key: "oa", action: "x", properties: { settles_at: instant } }] },
          "events[0].properties.settles_at",
        );
        const charges = await call("GET", `/v1/charges?from=${encodeURIComponent(instant)}`);
        expect([charges.status, errorCode(charges)], instant).toEqual([400, "VALIDATION_ERROR"]);
      }
      for (const instant of [
        "1970-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999Z",
        "2028-02-29T12:00:00+05:30",
        "2030-06-30T00:00:00.123456Z",
      ]) {
        expect(
          (await call("POST", "/v1/outcomes", { key: `ok-${instant}`, task_key: "ta", settles_at: instant })).status,
          instant,
        ).toBe(201);
        expect(
          (await call("POST", "/v1/events", { outcome_key: "oa", action: "x", properties: { settles_at: instant } }))
            .status,
          instant,
        ).toBe(202);
      }
    });

    it("refuses integers past 2^53 and non-finite numbers", async () => {
      const rateCard = (amount: string): string =>
        `{"currency":"USD","entries":[{"agent_key":"a","unit_amount":${amount}}]}`;
      for (const amount of ["9007199254740993", "9007199254740992", "1e400"]) {
        const reply = await request(t.base, "PUT", "/v1/rate-cards/huge", { token: t.token, raw: rateCard(amount) });
        expect([reply.status, errorCode(reply)], amount).toEqual([400, "VALIDATION_ERROR"]);
      }
      expect(
        (await request(t.base, "PUT", "/v1/rate-cards/huge", { token: t.token, raw: rateCard("9007199254740991") }))
          .status,
      ).toBe(201);
      for (const number of ["1e400", "-1e400", "9007199254740993", "-9007199254740993"]) {
        const raw = `{"outcome_key":"oa","action":"x","properties":{"deep":{"list":[1, ${number}]}}}`;
        const reply = await request(t.base, "POST", "/v1/events", { token: t.token, raw });
        expect([reply.status, errorCode(reply)], number).toEqual([400, "VALIDATION_ERROR"]);
        expect((reply.body as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe(
          "properties.deep.list[1]",
        );
      }
      const fine = await request(t.base, "POST", "/v1/events", {
        token: t.token,
        raw: '{"outcome_key":"oa","action":"x","properties":{"a":1.5e-300,"b":9007199254740991,"c":-0.5,"d":1.7976931348623157e-308}}',
      });
      expect(fine.status).toBe(202);
    });

    it("refuses a __proto__ property name with a clear message", async () => {
      for (const raw of [
        '{"outcome_key":"oa","action":"x","properties":{"__proto__":{"a":1}}}',
        '{"outcome_key":"oa","action":"x","properties":{"a":[{"__proto__":1}]}}',
      ]) {
        const reply = await request(t.base, "POST", "/v1/events", { token: t.token, raw });
        expect([reply.status, errorCode(reply)], raw).toEqual([400, "VALIDATION_ERROR"]);
        expect(JSON.stringify(reply.body)).toContain("__proto__");
      }
    });
  });

  describe("tokens", () => {
    it("refuses every spelling of the token but the canonical one", async () => {
      const standard = (() => {
        const dot = t.token.lastIndexOf(".");
        return `${t.token.slice(0, dot)}.${Buffer.from(t.token.slice(dot + 1), "base64url").toString("base64")}`;
      })();
      for (const token of [`${t.token}=`, `${t.token}=${"x".repeat(1000)}`, `${t.token}!!`, standard]) {
        const reply = await request(t.base, "GET", "/v1/tasks", { token });
        expect([reply.status, errorCode(reply)], token.slice(0, 120)).toEqual([401, "TOKEN_INVALID"]);
      }
      expect((await call("GET", "/v1/tasks")).status).toBe(200);
    });
  });

  describe("unknown fields", () => {
    it.each([
      ["PUT", "/v1/tasks/t", { name: "n", condition: "a", settlment_period: "1d" }, "settlment_period"],
      ["PUT", "/v1/agents/a", { name: "n", condition: "done", atribution_method: "sum" }, "atribution_method"],
      ["POST", "/v1/outcomes", { key: "u", task_key: "ta", setles_at: "2030-01-01T00:00:00Z" }, "setles_at"],
      ["PUT", "/v1/customers/c", { name: "n", ratecard_key: "r" }, "ratecard_key"],
      [
        "PUT",
        "/v1/rate-cards/r",
        { currency: "USD", entries: [{ agent_key: "a", unitAmount: 1, unit_amount: 1 }] },
        "entries[0].unitAmount",
      ],
    ] as const)("refuses %s %s with a misspelt field", async (method, path, body, field) => {
      const reply = await call(method, path, body);
      expect([reply.status, errorCode(reply)]).toEqual([400, "VALIDATION_ERROR"]);
      expect((reply.body as { error: { details: { path: string; message: string }[] } }).error.details).toContainEqual({
        path: field,
        message: "unknown field",
      });
    });
  });

  describe("keys: well-formed Unicode, and the same length cap in the path as in a body", () => {
    const lone = ["alias\ud800", "alias\udc00", "\udfff", "x\ud83d"];

    it("refuses lone surrogates in every key, action and idempotency key of an event", async () => {
      for (const text of lone) {
        const cases: [unknown, string][] = [
          [{ outcome_key: text, action: "a" }, "outcome_key"],
          [{ outcome_key: "oa", action: text }, "action"],
          [{ outcome_key: "oa", action: "a", idempotency_key: text }, "idempotency_key"],
          [{ key: text, customer_key: "c", action: "a" }, "key"],
          [{ key: "k", customer_key: text, action: "a" }, "customer_key"],
          [{ key: "k", customer_key: "c", agent_key: text, action: "a" }, "agent_key"],
          [{ outcome_key: "oa", action: "a", properties: { [text]: 1 } }, `properties.${text}`],
          [{ outcome_key: "oa", action: "a", properties: { note: [text] } }, "properties.note[0]"],
        ];
        for (const [event, field] of cases) {
          const single = await call("POST", "/v1/events", event);
          expect([single.status, errorCode(single)], `${field} ${JSON.stringify(text)}`).toEqual([
            400,
            "VALIDATION_ERROR",
          ]);
          expect((single.body as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe(field);
          const batch = await call("POST", "/v1/events/batch", { events: [event] });
          expect([batch.status, errorCode(batch)], field).toEqual([400, "VALIDATION_ERROR"]);
        }
      }
    });

    it("refuses lone surrogates in record and outcome bodies, so two keys never alias", async () => {
      for (const text of lone) {
        const cases: [string, string, unknown][] = [
          ["POST", "/v1/outcomes", { key: text, task_key: "ta" }],
          ["POST", "/v1/outcomes", { key: "fine", task_key: text }],
          ["PUT", "/v1/customers/cx", { name: "n", rate_card_key: text }],
          ["PUT", "/v1/customers/cx", { name: text }],
          ["PUT", "/v1/rate-cards/rx", { currency: "USD", entries: [{ agent_key: text, unit_amount: 1 }] }],
          ["PUT", "/v1/tasks/tx", { name: "n", condition: "a", goal: text }],
        ];
        for (const [method, path, body] of cases) {
          const reply = await call(method, path, body);
          expect([reply.status, errorCode(reply)], `${path} ${JSON.stringify(body)}`).toEqual([
            400,
            "VALIDATION_ERROR",
          ]);
        }
      }
      const raw = await request(t.base, "PUT", "/v1/tasks/%ED%A0%80", {
        token: t.token,
        body: { name: "n", condition: "a" },
      });
      expect([raw.status, errorCode(raw)]).toEqual([400, "VALIDATION_ERROR"]);
    });

    it("caps a key in the path at 512 characters, as in a body", async () => {
      for (const segment of ["tasks", "agents", "customers", "rate-cards"]) {
        const long = encodeURIComponent("k".repeat(513));
        const body =
          segment === "customers"
            ? { name: "n" }
            : segment === "rate-cards"
              ? { currency: "USD", entries: [] }
              : { name: "n", condition: "done" };
        for (const method of ["PUT", "GET", "DELETE"]) {
          const reply = await call(method, `/v1/${segment}/${long}`, method === "PUT" ? body : undefined);
          expect([reply.status, errorCode(reply)], `${method} ${segment}`).toEqual([400, "VALIDATION_ERROR"]);
        }
        expect((await call("PUT", `/v1/${segment}/${encodeURIComponent("é".repeat(512))}`, body)).status, segment).toBe(
          201,
        );
      }
      for (const path of [`/v1/outcomes/${"k".repeat(513)}`, `/v1/outcomes/${"k".repeat(513)}/events`]) {
        const reply = await call("GET", path);
        expect([reply.status, errorCode(reply)], path).toEqual([400, "VALIDATION_ERROR"]);
      }
    });

    it("answers any key either 400 or with the same key back from every read", async () => {
      const unit = fc.oneof(
        { weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 2 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
        { weight: 1, arbitrary: fc.constantFrom(":", "/", "%", "?", "#", "\n", "\u0000", " ", "\ufeff") },
      );
      const keys = fc.oneof(
        { weight: 5, arbitrary: fc.array(unit, { maxLength: 20 }).map((parts) => parts.join("")) },
        { weight: 1, arbitrary: fc.integer({ min: 510, max: 514 }).map((n) => "k".repeat(n)) },
      );
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(keys, async (key) => {
          const opened = await call("POST", "/v1/outcomes", { key, task_key: "tb" });
          const valid = key.length >= 1 && key.length <= 512 && !/\p{Cs}/u.test(key);
          if (!valid) {
            expect([opened.status, errorCode(opened)]).toEqual([400, "VALIDATION_ERROR"]);
            return;
          }
          expect(opened.status).toBe(seen.has(key) ? 200 : 201);
          seen.add(key);
          expect((opened.body as { key: string }).key).toBe(key);
          const read = await call("GET", `/v1/outcomes/${encodeURIComponent(key)}`);
          expect(read.status).toBe(200);
          expect((read.body as { key: string }).key).toBe(key);
          const listed = await call("GET", `/v1/outcomes?task_key=tb&limit=1000`);
          expect((listed.body as { outcomes: { key: string }[] }).outcomes.map((o) => o.key)).toContain(key);
        }),
        { numRuns: 60 },
      );
    });

    /** Percent-encodes every UTF-16 unit as UTF-8 bytes, lone surrogates included (as a careless client would). */
    const encodeUnits = (text: string): string =>
      [...text]
        .map((char) => {
          const code = char.codePointAt(0)!;
          if (code < 0xd800 || code > 0xdfff) return encodeURIComponent(char);
          return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join("");
        })
        .join("");

    it("answers any key in a path either 400 or with the same key back from every read", async () => {
      const unit = fc.oneof(
        { weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 2 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
        { weight: 1, arbitrary: fc.constantFrom(":", "/", "%", "?", "#", "\n", " ", ".", "..") },
      );
      const keys = fc.oneof(
        // "." and ".." as a whole segment are dot segments every URL client resolves away, even encoded.
        {
          weight: 5,
          arbitrary: fc
            .array(unit, { minLength: 1, maxLength: 20 })
            .map((parts) => parts.join(""))
            .filter((key) => key !== "." && key !== ".."),
        },
        { weight: 1, arbitrary: fc.integer({ min: 510, max: 514 }).map((n) => "k".repeat(n)) },
      );
      await fc.assert(
        fc.asyncProperty(keys, async (key) => {
          const path = `/v1/customers/${encodeUnits(key)}`;
          const put = await call("PUT", path, { name: "n" });
          const valid = key.length <= 512 && !/\p{Cs}/u.test(key);
          if (!valid) {
            expect([put.status, errorCode(put)]).toEqual([400, "VALIDATION_ERROR"]);
            return;
          }
          expect([200, 201]).toContain(put.status);
          expect((put.body as { key: string }).key).toBe(key);
          const read = await call("GET", path);
          expect((read.body as { key: string }).key).toBe(key);
          let cursor: string | null = null;
          const listed: string[] = [];
          do {
            const page = (
              await call(
                "GET",
                `/v1/customers?limit=1000${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
              )
            ).body as { customers: { key: string }[]; next_cursor: string | null };
            listed.push(...page.customers.map((c) => c.key));
            cursor = page.next_cursor;
          } while (cursor !== null);
          expect(listed).toContain(key);
        }),
        { numRuns: 60 },
      );
    });
  });
});
