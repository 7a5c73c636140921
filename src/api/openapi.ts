// The OpenAPI 3.1 document of the HTTP API, served at GET /v1/openapi.json without a token: the schemas
// typia generates from the routes' own types (openapi-schemas.ts) and the paths (openapi-paths.ts), each
// made an operation with its operationId and error answers by openapi-operation.ts.
// test/ingress/openapi.test.ts checks that every route the app serves is listed and that real answers
// validate against the schemas; src/api/openapi.test.ts that `redocly lint` finds nothing.
import type { Route } from "../ingress/router.js";
import { operation, type Method } from "./openapi-operation.js";
import { PATHS } from "./openapi-paths.js";
import { collection } from "./openapi-schemas.js";

/** "/v1/outcomes/:key" -> "/v1/outcomes/{key}". */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:(\w+)/g, "{$1}");
}

/** The whole document. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(PATHS)) {
    paths[path] = Object.fromEntries(
      Object.entries(methods).map(([method, op]) => [method, operation(method as Method, path, op)]),
    );
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Verdict",
      version: "1",
      description:
        "Outcome tracking for fleets of AI agents: events in, verdicts out. Every /v1 route but this document needs `Authorization: Bearer <token>`. docs/api.md describes each route with examples.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // Relative: the service that serves this document is the one it describes, wherever it runs.
    servers: [{ url: "/", description: "The service that served this document" }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        ...collection.components.schemas,
        OpenApiDocument: {
          type: "object",
          properties: { openapi: { type: "string" }, paths: { type: "object" } },
          required: ["openapi", "paths"],
        },
      },
    },
  };
}

/** Every served route that the document lacks, as "METHOD /path" (empty when it is complete). */
export function undocumentedRoutes(routes: readonly Pick<Route, "method" | "path">[]): string[] {
  return routes
    .filter((route) => PATHS[openApiPath(route.path)]?.[route.method.toLowerCase() as Method] === undefined)
    .map((route) => `${route.method} ${route.path}`);
}

/** GET /v1/openapi.json: the document, serialised once. */
export function openApiRoute(): Route {
  const body = openApiDocument();
  return {
    method: "GET",
    path: "/v1/openapi.json",
    anonymous: true,
    handler: () => Promise.resolve({ status: 200, body }),
  };
}
