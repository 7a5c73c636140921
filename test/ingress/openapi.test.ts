// docs of the API that cannot drift: GET /v1/openapi.json (no token) lists every route the app serves and
// nothing else, and real answers of every route, successes and errors, validate against its schemas
// (JSON Schema 2020-12, as OpenAPI 3.1 has it, with Ajv).
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiPath } from "../../src/api/openapi.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

// ajv-formats is CommonJS: under ESM its function may arrive as the module itself or under `default`.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormatsExport = addFormatsModule as unknown as AddFormats | { default: AddFormats };
const addFormats: AddFormats = typeof addFormatsExport === "function" ? addFormatsExport : addFormatsExport.default;

interface Document {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown[];
        responses: Record<string, { content?: { "application/json": { schema: { $ref: string } } } }>;
      }
    >
  >;
}

interface Exchange {
  method: string;
  /** The route pattern, e.g. /v1/outcomes/:key. */
  route: string;
  status: number;
  body: unknown;
}

describe("OpenAPI document", () => {
  let t: TestApp;
  let document: Document;
  const exchanges: Exchange[] = [];

  /** One request by route pattern and parameters; its answer is kept for validation. */
  async function call(
    method: string,
    route: string,
    params: Record<string, string> = {},
    body?: unknown,
    query = "",
    token: string | null = t.token,
  ): Promise<{ status: number; body: unknown }> {
    const path = route.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]!));
    const response = await fetch(`${t.base}${path}${query}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    const answer = { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
    exchanges.push({ method, route, ...answer });
    return answer;
  }

  beforeAll(async () => {
    t = await startTestApp("standalone", { shards: 2, webhookAllowPrivateUrls: true });
    const answer = await call("GET", "/v1/openapi.json", {}, undefined, "", null);
    expect(answer.status).toBe(200);
    document = answer.body as Document;
  }, 30_000);
  afterAll(async () => {
    await t.stop();
  });

  it("is OpenAPI 3.1, served without a token, and needs one for every other route", () => {
    expect(document.openapi).toBe("3.1.0");
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(operation.security, `${method} ${path}`).toEqual(path === "/v1/openapi.json" ? [] : undefined);
      }
    }
  });

  it("lists every route the app serves, and only those", () => {
    const served = t.app.routes.map((route) => `${route.method} ${openApiPath(route.path)}`).sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(served.length).toBeGreaterThan(20);
    expect(documented).toEqual(served);
  });

  it("describes the real answers of every route, successes and errors", async () => {
    // A webhook endpoint that nothing listens at: its messages stay pending, with failed attempts.
    const created = await call(
      "POST",
      "/v1/webhook-endpoints",
      {},
      { url: "http://127.0.0.1:9/hook", description: "nobody listens" },
    );
    expect(created.status).toBe(201);
    const endpoint = { id: (created.body as { id: string }).id };
    expect((await call("GET", "/v1/webhook-endpoints")).status).toBe(200);
    expect((await call("GET", "/v1/webhook-endpoints/:id", endpoint)).status).toBe(200);
    expect(
      (
        await call("PATCH", "/v1/webhook-endpoints/:id", endpoint, {
          event_types: ["outcome.confirmed", "outcome.failed"],
        })
      ).status,
    ).toBe(200);
    expect((await call("GET", "/v1/webhook-endpoints/:id/secret", endpoint)).status).toBe(200);
    expect((await call("POST", "/v1/webhook-endpoints/:id/rotate-secret", endpoint)).status).toBe(200);

    // Variant A: a task, an outcome, events, a verdict.
    expect(
      (
        await call(
          "PUT",
          "/v1/tasks/:key",
          { key: "t" },
          { name: "Task", condition: "COUNT(work)>=1 AND done", settlement_period: null },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await call(
          "PUT",
          "/v1/tasks/:key",
          { key: "t" },
          { name: "Task", goal: "a goal", condition: "COUNT(work)>=1 AND done" },
        )
      ).status,
    ).toBe(200);
    expect((await call("GET", "/v1/tasks/:key", { key: "t" })).status).toBe(200);
    expect((await call("GET", "/v1/tasks")).status).toBe(200);
    expect((await call("POST", "/v1/outcomes", {}, { key: "o:1", task_key: "t" })).status).toBe(201);
    expect((await call("POST", "/v1/outcomes", {}, { key: "o:1", task_key: "t" })).status).toBe(200);
    expect(
      (
        await call(
          "POST",
          "/v1/events",
          {},
          { outcome_key: "o:1", action: "work", properties: { value: 2.5, tags: ["x"] } },
        )
      ).status,
    ).toBe(202);
    const batch = await call(
      "POST",
      "/v1/events/batch",
      {},
      {
        events: [
          { outcome_key: "o:1", action: "done", idempotency_key: "d1" },
          { outcome_key: "never-opened", action: "x" },
        ],
      },
    );
    expect(batch.status).toBe(202);
    await eventually(
      async () =>
        ((await t.request("GET", "/v1/outcomes/o%3A1")).body as { status: string }).status === "CONFIRMED" || undefined,
      15_000,
      "o:1 confirmed",
    );
    expect((await call("GET", "/v1/outcomes/:key", { key: "o:1" })).status).toBe(200);
    expect((await call("GET", "/v1/outcomes")).status).toBe(200);
    expect((await call("GET", "/v1/outcomes", {}, undefined, "?status=CONFIRMED&limit=1")).status).toBe(200);
    expect((await call("GET", "/v1/outcomes", {}, undefined, "?sort=anomaly&order=asc")).status).toBe(200);
    expect((await call("GET", "/v1/outcomes/:key/events", { key: "o:1" })).status).toBe(200);
    const message = await eventually(
      async () =>
        (
          (await t.request("GET", `/v1/webhook-endpoints/${endpoint.id}/messages`)).body as {
            messages: { id: string }[];
          }
        ).messages[0],
      15_000,
      "the verdict's webhook message",
    );
    expect((await call("GET", "/v1/webhook-endpoints/:id/messages", endpoint)).status).toBe(200);
    expect(
      (
        await call("GET", "/v1/webhook-endpoints/:id/messages/:message_id/attempts", {
          ...endpoint,
          message_id: message.id,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call("POST", "/v1/webhook-endpoints/:id/messages/:message_id/resend", {
          ...endpoint,
          message_id: message.id,
        })
      ).status,
    ).toBe(202);
    expect((await call("DELETE", "/v1/webhook-endpoints/:id", endpoint)).status).toBe(204);

    // Variant B: an agent, a rate card, a customer; the first event creates the outcome; a charge.
    expect(
      (
        await call(
          "PUT",
          "/v1/agents/:key",
          { key: "a" },
          { name: "Agent", condition: "done", attribution_method: "last" },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await call(
          "PUT",
          "/v1/rate-cards/:key",
          { key: "card" },
          { currency: "EUR", entries: [{ agent_key: "a", unit_amount: 250 }] },
        )
      ).status,
    ).toBe(201);
    expect(
      (await call("PUT", "/v1/customers/:key", { key: "c" }, { name: "Customer", rate_card_key: "card" })).status,
    ).toBe(201);
    for (const [route, key] of [
      ["/v1/agents/:key", "a"],
      ["/v1/rate-cards/:key", "card"],
      ["/v1/customers/:key", "c"],
    ] as const) {
      expect((await call("GET", route, { key })).status).toBe(200);
      expect((await call("GET", route.replace("/:key", ""))).status).toBe(200);
    }
    expect(
      (await call("POST", "/v1/events", {}, { key: "b:1", customer_key: "c", agent_key: "a", action: "done" })).status,
    ).toBe(202);
    await eventually(
      async () =>
        ((await t.request("GET", "/v1/charges")).body as { charges: unknown[] }).charges.length === 1
          ? true
          : undefined,
      15_000,
      "the charge",
    );
    expect((await call("GET", "/v1/charges")).status).toBe(200);
    expect((await call("GET", "/v1/charges", {}, undefined, "?customer_key=c&from=2020-01-01T00:00:00Z")).status).toBe(
      200,
    );
    expect((await call("GET", "/v1/usage")).status).toBe(200);
    expect((await call("GET", "/v1/insights", {}, undefined, "?group_by=agent&bucket=hour")).status).toBe(200);
    expect((await call("GET", "/v1/insights", {}, undefined, "?group_by=everyone")).status).toBe(400);

    // OTLP: the mapping, and a trace export in OTLP/JSON (one GenAI span naming its outcome, one HTTP span dropped).
    expect((await call("PUT", "/v1/otlp/mapping", {}, { include_attributes: ["gen_ai.input.messages"] })).status).toBe(
      201,
    );
    expect((await call("PUT", "/v1/otlp/mapping", {}, {})).status).toBe(200);
    expect((await call("GET", "/v1/otlp/mapping")).status).toBe(200);
    const span = (spanId: string, attributes: Record<string, string>) => ({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId,
      name: "span",
      endTimeUnixNano: String(Date.now() * 1e6),
      attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
    });
    const spans = [
      span("b7ad6b7169203331", { "gen_ai.operation.name": "chat", "verdict.outcome_key": "o:1" }),
      span("00f067aa0ba902b7", { "http.request.method": "GET" }),
    ];
    expect((await call("POST", "/v1/traces", {}, { resourceSpans: [{ scopeSpans: [{ spans }] }] })).status).toBe(200);
    expect(
      (await call("POST", "/v1/traces", {}, { resourceSpans: [{ scopeSpans: [{ spans: [span("nothex", {})] }] }] }))
        .status,
    ).toBe(400);

    // The dead letter of the event for an outcome nobody opened, and its replay.
    const letter = await eventually(
      async () => ((await t.request("GET", "/v1/dlq")).body as { dead_letters: { id: string }[] }).dead_letters[0],
      15_000,
      "the dead letter",
    );
    expect((await call("GET", "/v1/dlq")).status).toBe(200);
    expect((await call("POST", "/v1/dlq/:id/replay", { id: letter.id })).status).toBe(202);

    // Deletes, then errors in the one error shape.
    for (const [route, key] of [
      ["/v1/customers/:key", "c"],
      ["/v1/rate-cards/:key", "card"],
      ["/v1/agents/:key", "a"],
      ["/v1/tasks/:key", "t"],
    ] as const) {
      expect((await call("DELETE", route, { key })).status).toBe(204);
    }
    expect((await call("GET", "/v1/outcomes/:key", { key: "missing" })).status).toBe(404);
    expect((await call("POST", "/v1/events", {}, { outcome_key: "o:1" })).status).toBe(400);
    expect((await call("GET", "/v1/tasks", {}, undefined, "", null)).status).toBe(401);
    expect((await call("POST", "/v1/dlq/:id/replay", { id: "nope" })).status).toBe(404);

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, "openapi.json");
    const validators = new Map<string, ValidateFunction>();
    const validatorOf = (ref: string): ValidateFunction => {
      let validate = validators.get(ref);
      if (!validate) {
        validate = ajv.getSchema(`openapi.json${ref}`);
        if (!validate) throw new Error(`no schema ${ref}`);
        validators.set(ref, validate);
      }
      return validate;
    };

    // The schemas are real: an empty object is no outcome, an error without its code is no error.
    expect(validatorOf("#/components/schemas/OutcomeView")({})).toBe(false);
    expect(validatorOf("#/components/schemas/ErrorBody")({ error: { message: "x", request_id: "r" } })).toBe(false);
    expect(validatorOf("#/components/schemas/EventAccepted")({ accepted: true, duplicate: "no" })).toBe(false);

    const exercised = new Set<string>();
    for (const { method, route, status, body } of exchanges) {
      const operation = document.paths[openApiPath(route)]?.[method.toLowerCase()];
      expect(operation, `${method} ${route}`).toBeDefined();
      const response =
        operation!.responses[String(status)] ?? (status >= 400 ? operation!.responses.default : undefined);
      expect(response, `${method} ${route} answered ${status}, which the document does not list`).toBeDefined();
      const schema = response!.content?.["application/json"].schema;
      if (schema === undefined) {
        expect(body, `${method} ${route} ${status}`).toBeUndefined();
      } else {
        const validate = validatorOf(schema.$ref);
        expect(validate(body) ? [] : validate.errors, `${method} ${route} ${status}: ${JSON.stringify(body)}`).toEqual(
          [],
        );
      }
      if (status < 400) exercised.add(`${method} ${openApiPath(route)}`);
    }
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((op) => !exercised.has(op))).toEqual([]);
  }, 90_000);
});
