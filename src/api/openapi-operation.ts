// One OpenAPI operation from a line of the path table: every operation gets an operationId and its error
// answers (each with the one error body) here, so a route added to the table cannot come without them.

export type Method = "get" | "put" | "post" | "patch" | "delete";

export interface Operation {
  summary: string;
  /** The name generated clients give the call (`listTasks`). @default derived from the method and path */
  id?: string;
  /** Schema name of the JSON request body. */
  body?: string;
  /** Status -> schema name of the JSON answer, or null for none (204). */
  responses: Record<number, string | null>;
  query?: Record<string, string>;
  /** Routes outside the token check. */
  anonymous?: boolean;
  /** Error answers beyond the ones every operation of its kind can give (see errorResponses): status -> when. */
  errors?: Record<number, string>;
  /** Schema name of error answers when not the one error shape (OTLP's google.rpc.Status). @default ErrorBody */
  errorBody?: string;
}

const ERROR_BODY = { $ref: "#/components/schemas/ErrorBody" };

export const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

const words = (text: string): string[] => text.split(/[^A-Za-z0-9]+/).filter((word) => word !== "");
const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `GET /v1/outcomes/{key}/events` -> `getOutcomesByKeyEvents`: unique per method and path, for lines without `id`. */
export function derivedOperationId(method: Method, path: string): string {
  const parts = path
    .split("/")
    .filter((segment) => segment !== "" && segment !== "v1")
    .map((segment) =>
      segment.startsWith("{") ? `By${words(segment).map(capital).join("")}` : words(segment).map(capital).join(""),
    );
  return method + parts.join("");
}

/**
 * The 4xx answers an operation can give, from what the HTTP edge checks before any handler runs (framing,
 * token, body size and JSON) and what a path parameter implies, plus the line's own `errors`.
 */
export function errorResponses(method: Method, path: string, op: Operation): Record<string, string> {
  const errors: Record<string, string> = {
    400: "VALIDATION_ERROR: the request is malformed (its framing, JSON body, a query or path parameter); `details` points at what is wrong",
  };
  if (op.anonymous !== true) errors[401] = "TOKEN_INVALID: no `Authorization: Bearer <token>`, or not a valid one";
  if (path.includes("{") && method !== "put") errors[404] = "The record the path names does not exist (`*_NOT_FOUND`)";
  if (op.body !== undefined) errors[413] = "PAYLOAD_TOO_LARGE: the body is larger than the route takes";
  return { ...errors, ...op.errors };
}

function parametersOf(path: string, op: Operation): Record<string, unknown>[] {
  return [
    ...[...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
    })),
    ...Object.entries(op.query ?? {}).map(([name, description]) => ({
      name,
      in: "query",
      required: false,
      description,
      schema: { type: "string" },
    })),
  ];
}

export function operation(method: Method, path: string, op: Operation): Record<string, unknown> {
  const parameters = parametersOf(path, op);
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(op.responses)) {
    responses[status] =
      schema === null
        ? { description: "No content" }
        : { description: "OK", content: { "application/json": { schema: ref(schema) } } };
  }
  const errorBody = op.errorBody === undefined ? ERROR_BODY : ref(op.errorBody);
  for (const [status, description] of Object.entries(errorResponses(method, path, op))) {
    responses[status] = { description, content: { "application/json": { schema: errorBody } } };
  }
  responses.default = {
    description:
      op.errorBody === undefined
        ? "Any other error (503 SERVICE_UNAVAILABLE, 500 INTERNAL_ERROR), in the one error shape"
        : "Any other error, as the protocol's clients read it",
    content: { "application/json": { schema: errorBody } },
  };
  return {
    operationId: op.id ?? derivedOperationId(method, path),
    summary: op.summary,
    ...(op.anonymous ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: ref(op.body) } } } }),
    responses,
  };
}
