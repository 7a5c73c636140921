// The OpenAPI document serves generators: every operation has a unique operationId and its 4xx answers with
// the error body, and `redocly lint` (recommended rules, the pinned devDependency, offline) finds nothing.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi.js";
import { derivedOperationId, operation } from "./openapi-operation.js";

interface Answer {
  content?: { "application/json"?: { schema?: { $ref?: string } } };
}
type Operations = Record<string, Record<string, { operationId?: string; responses: Record<string, Answer> }>>;

const run = promisify(execFile);
/** The one error body, and the google.rpc.Status OTLP exporters read from POST /v1/traces. */
const ERROR_BODIES = new Set(["#/components/schemas/ErrorBody", "#/components/schemas/RpcStatusJson"]);

describe("the OpenAPI document", () => {
  const paths = openApiDocument().paths as Operations;
  const operations = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op })),
  );

  it("gives every operation a unique operationId", () => {
    const ids = operations.map(({ at, op }) => [at, op.operationId] as const);
    expect(ids.filter(([, id]) => typeof id !== "string" || id === "")).toEqual([]);
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
  });

  it("describes each operation's 4xx answers with the error body", () => {
    const lacking = operations.filter(({ op }) => {
      const errors = Object.entries(op.responses).filter(([status]) => /^4\d\d$/.test(status));
      return (
        errors.length === 0 ||
        errors.some(([, answer]) => !ERROR_BODIES.has(answer.content?.["application/json"]?.schema?.$ref ?? ""))
      );
    });
    expect(lacking.map(({ at }) => at)).toEqual([]);
  });

  it("gives a line without its own id and errors both, derived from its method and path", () => {
    const op = operation("post", "/v1/otlp/mapping/{name}", { summary: "x", body: "X", responses: { 200: "X" } });
    expect(op.operationId).toBe("postOtlpMappingByName");
    expect(Object.keys(op.responses as object)).toEqual(["200", "400", "401", "404", "413", "default"]);
    expect(derivedOperationId("get", "/v1/webhook-endpoints/{id}/messages/{message_id}/attempts")).toBe(
      "getWebhookEndpointsByIdMessagesByMessageIdAttempts",
    );
  });

  it("passes `redocly lint` with the recommended rules: no error, no warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verdict-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(openApiDocument()));
      const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
      // redocly exits 1 on errors; the JSON report on stdout is what the test reads either way.
      const result = await run("node_modules/.bin/redocly", ["lint", file, "--extends=recommended", "--format=json"], {
        env,
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
      const report = JSON.parse(result.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
      };
      expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
