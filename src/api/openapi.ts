// The OpenAPI 3.1 document of the HTTP API, served at GET /v1/openapi.json without a token. The schemas are
// generated at build time by typia from the very types the routes validate and answer with, so they cannot
// drift from the code; the paths are listed here. test/ingress/openapi.test.ts checks that every route the app
// serves is listed and that real answers validate against the schemas.
import typia from "typia";
import type { ErrorBody } from "../errors/api-error.js";
import type { Route } from "../ingress/router.js";
import type { BatchAccepted, EventAccepted } from "../ingress/routes/events.js";
import type { AgentEventInput, TaskEventInput } from "../ingress/validate-events.js";
import type { ChargeRecord } from "../outcomes/charge.js";
import type { AgentRecord } from "../records/agent.js";
import type { CustomerRecord } from "../records/customer.js";
import type { RateCardRecord } from "../records/rate-card.js";
import type { TaskRecord } from "../records/task.js";
import type { DeadLetterView } from "../stores/dead-letter-store.js";
import type { LoggedEvent } from "../stores/outcome-store.js";
import type { OtlpMapping } from "../otlp/mapping-config.js";
import type { ExportTraceServiceRequestJson, ExportTraceServiceResponseJson, RpcStatusJson } from "../otlp/response.js";
import type { ContractBody } from "./contract-fields.js";
import type { OutcomeView } from "./present-outcome.js";
import type { UsageView } from "./routes/charges.js";
import type { PutAgentBody, PutCustomerBody, PutRateCardBody } from "./routes/configuration.js";
import type { ReplayAccepted } from "./routes/dead-letters.js";
import type { OpenOutcomeBody } from "./routes/outcomes.js";
import type { CreateWebhookEndpointBody, PatchWebhookEndpointBody } from "./routes/webhooks.js";
import type { WebhookEndpointView } from "../webhooks/endpoint-store.js";
import type { AttemptView, MessageView } from "../webhooks/message-store.js";

// The list bodies, named so the document names them.
interface TaskList {
  tasks: TaskRecord[];
  next_cursor: string | null;
}
interface OutcomeList {
  outcomes: OutcomeView[];
  next_cursor: string | null;
}
interface OutcomeEventList {
  events: LoggedEvent[];
  next_cursor: string | null;
}
interface AgentList {
  agents: AgentRecord[];
  next_cursor: string | null;
}
interface CustomerList {
  customers: CustomerRecord[];
  next_cursor: string | null;
}
interface RateCardList {
  rate_cards: RateCardRecord[];
  next_cursor: string | null;
}
interface DeadLetterList {
  dead_letters: DeadLetterView[];
  next_cursor: string | null;
}
interface ChargeList {
  charges: ChargeRecord[];
  next_cursor: string | null;
}
interface WebhookEndpointCreated extends WebhookEndpointView {
  /** `whsec_` + base64 of 32 random bytes: shown on creation and at `/secret` only. */
  secret: string;
}
interface WebhookEndpointList {
  webhook_endpoints: WebhookEndpointView[];
  next_cursor: string | null;
}
interface WebhookSecret {
  secret: string;
}
interface WebhookSecretRotated {
  secret: string;
  /** Until then the previous secret signs alongside the new one. */
  previous_secret_expires_at: string;
}
interface WebhookMessageList {
  messages: MessageView[];
  next_cursor: string | null;
}
interface WebhookAttemptList {
  attempts: AttemptView[];
}
interface WebhookResent {
  resent: true;
  id: string;
}
/** A Variant A event (names an opened outcome) or a Variant B one (an unseen key creates the outcome). */
type Event = TaskEventInput | AgentEventInput;
interface EventBatch {
  events: Event[];
}
/** PUT /v1/otlp/mapping: any fields of the mapping; those left out keep their defaults. */
type OtlpMappingInput = Partial<OtlpMapping>;

const collection = typia.json.schemas<
  [
    ErrorBody,
    Event,
    EventBatch,
    EventAccepted,
    BatchAccepted,
    ContractBody,
    TaskRecord,
    TaskList,
    OpenOutcomeBody,
    OutcomeView,
    OutcomeList,
    OutcomeEventList,
    PutAgentBody,
    AgentRecord,
    AgentList,
    PutCustomerBody,
    CustomerRecord,
    CustomerList,
    PutRateCardBody,
    RateCardRecord,
    RateCardList,
    DeadLetterList,
    ReplayAccepted,
    ChargeList,
    UsageView,
    CreateWebhookEndpointBody,
    PatchWebhookEndpointBody,
    WebhookEndpointView,
    WebhookEndpointCreated,
    WebhookEndpointList,
    WebhookSecret,
    WebhookSecretRotated,
    WebhookMessageList,
    WebhookAttemptList,
    WebhookResent,
    ExportTraceServiceRequestJson,
    ExportTraceServiceResponseJson,
    RpcStatusJson,
    OtlpMapping,
    OtlpMappingInput,
  ],
  "3.1"
>();

type Method = "get" | "put" | "post" | "patch" | "delete";

interface Operation {
  summary: string;
  /** Schema name of the JSON request body. */
  body?: string;
  /** Status -> schema name of the JSON answer, or null for none (204). */
  responses: Record<number, string | null>;
  query?: Record<string, string>;
  /** Routes outside the token check. */
  anonymous?: boolean;
  /** Schema name of error answers when not the one error shape (OTLP's google.rpc.Status). @default ErrorBody */
  errorBody?: string;
}

const PAGING = {
  limit: "Items per page, 1 to 1000 (default 100).",
  cursor: "The `next_cursor` of the previous page (opaque; a cursor the API did not hand out for this list is 400 VALIDATION_ERROR).",
};

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/** The configuration records' four routes: PUT (201 created, 200 replaced), GET, DELETE (204), GET list. */
function recordPaths(segment: string, what: string, put: string, record: string, list: string): Record<string, Partial<Record<Method, Operation>>> {
  return {
    [`/v1/${segment}/{key}`]: {
      put: { summary: `Create or replace a ${what}`, body: put, responses: { 200: record, 201: record } },
      get: { summary: `One ${what}`, responses: { 200: record } },
      delete: { summary: `Delete a ${what}`, responses: { 204: null } },
    },
    [`/v1/${segment}`]: {
      get: { summary: `List ${what}s by key, a page at a time`, responses: { 200: list }, query: PAGING },
    },
  };
}

const PATHS: Record<string, Partial<Record<Method, Operation>>> = {
  "/v1/openapi.json": { get: { summary: "This document (no token needed)", responses: { 200: "OpenApiDocument" }, anonymous: true } },
  "/v1/events": { post: { summary: "Submit one event; 202 once it is durably enqueued, 429 QUOTA_EXCEEDED past the account's events per second", body: "Event", responses: { 202: "EventAccepted" } } },
  "/v1/events/batch": { post: { summary: "Submit up to 500 events; each accepted one is enqueued, the others listed in `failed` (`rate_limited`: past the account's events per second)", body: "EventBatch", responses: { 202: "BatchAccepted" } } },
  "/v1/traces": {
    post: {
      summary: "OTLP/HTTP trace export (application/x-protobuf or application/json, gzip or not): GenAI spans become events (docs/otlp.md); shown here in OTLP/JSON",
      body: "ExportTraceServiceRequestJson",
      responses: { 200: "ExportTraceServiceResponseJson" },
      errorBody: "RpcStatusJson",
    },
  },
  "/v1/otlp/mapping": {
    get: { summary: "The account's OTLP mapping: which attributes name outcomes, tasks, agents and customers", responses: { 200: "OtlpMapping" } },
    put: { summary: "Override the OTLP mapping (fields left out keep their defaults)", body: "OtlpMappingInput", responses: { 200: "OtlpMapping", 201: "OtlpMapping" } },
  },
  ...recordPaths("tasks", "task", "ContractBody", "TaskRecord", "TaskList"),
  "/v1/outcomes": {
    post: { summary: "Open a Variant A outcome from a task (the same key and task again: 200 with the existing one)", body: "OpenOutcomeBody", responses: { 200: "OutcomeView", 201: "OutcomeView" } },
    get: {
      summary: "List outcomes, newest first, or sorted by a score",
      responses: { 200: "OutcomeList" },
      query: {
        status: "OPEN, CONFIRMED or FAILED.",
        task_key: "Outcomes of one task.",
        agent_key: "Outcomes of one agent.",
        customer_key: "Outcomes of one customer.",
        sort: "trajectory, anomaly or novelty: sort by that score.",
        order: "asc or desc (with sort; default desc).",
        ...PAGING,
      },
    },
  },
  "/v1/outcomes/{key}": { get: { summary: "One outcome, with its condition annotated and its progress", responses: { 200: "OutcomeView" } } },
  "/v1/outcomes/{key}/events": { get: { summary: "The outcome's applied events, oldest first", responses: { 200: "OutcomeEventList" }, query: PAGING } },
  ...recordPaths("agents", "agent", "PutAgentBody", "AgentRecord", "AgentList"),
  ...recordPaths("customers", "customer", "PutCustomerBody", "CustomerRecord", "CustomerList"),
  ...recordPaths("rate-cards", "rate card", "PutRateCardBody", "RateCardRecord", "RateCardList"),
  "/v1/dlq": { get: { summary: "Dead letters: events that could not be applied, with their code", responses: { 200: "DeadLetterList" }, query: { code: "Only this dead-letter code.", ...PAGING } } },
  "/v1/dlq/{id}/replay": { post: { summary: "Send a dead letter's event through its shard again", responses: { 202: "ReplayAccepted" } } },
  "/v1/charges": {
    get: {
      summary: "Charges of confirmed Variant B outcomes",
      responses: { 200: "ChargeList" },
      query: { customer_key: "One customer's charges.", from: "ISO 8601: confirmed at or after.", to: "ISO 8601: confirmed before.", ...PAGING },
    },
  },
  "/v1/usage": { get: { summary: "Billable events per customer", responses: { 200: "UsageView" }, query: { customer_key: "One customer only." } } },
  "/v1/webhook-endpoints": {
    post: { summary: "Create a webhook endpoint (Standard Webhooks); its signing secret is in the answer", body: "CreateWebhookEndpointBody", responses: { 201: "WebhookEndpointCreated" } },
    get: { summary: "List webhook endpoints by id, a page at a time", responses: { 200: "WebhookEndpointList" }, query: PAGING },
  },
  "/v1/webhook-endpoints/{id}": {
    get: { summary: "One webhook endpoint", responses: { 200: "WebhookEndpointView" } },
    patch: { summary: "Change an endpoint's url, event types, description or enabled flag", body: "PatchWebhookEndpointBody", responses: { 200: "WebhookEndpointView" } },
    delete: { summary: "Delete a webhook endpoint", responses: { 204: null } },
  },
  "/v1/webhook-endpoints/{id}/secret": { get: { summary: "The endpoint's signing secret", responses: { 200: "WebhookSecret" } } },
  "/v1/webhook-endpoints/{id}/rotate-secret": { post: { summary: "A new signing secret; the previous one keeps signing for 24 h", responses: { 200: "WebhookSecretRotated" } } },
  "/v1/webhook-endpoints/{id}/messages": { get: { summary: "The endpoint's messages, each with its status (pending, delivered, failed)", responses: { 200: "WebhookMessageList" }, query: PAGING } },
  "/v1/webhook-endpoints/{id}/messages/{message_id}/attempts": { get: { summary: "Delivery attempts of one message", responses: { 200: "WebhookAttemptList" } } },
  "/v1/webhook-endpoints/{id}/messages/{message_id}/resend": { post: { summary: "Deliver a message again", responses: { 202: "WebhookResent" } } },
};

/** "/v1/outcomes/:key" -> "/v1/outcomes/{key}". */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:(\w+)/g, "{$1}");
}

function operation(path: string, op: Operation): Record<string, unknown> {
  const parameters = [
    ...[...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } })),
    ...Object.entries(op.query ?? {}).map(([name, description]) => ({ name, in: "query", required: false, description, schema: { type: "string" } })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(op.responses)) {
    responses[status] = schema === null ? { description: "No content" } : { description: "OK", content: { "application/json": { schema: ref(schema) } } };
  }
  responses.default = op.errorBody === undefined
    ? { description: "An error, in the one error shape", content: { "application/json": { schema: ref("ErrorBody") } } }
    : { description: "An error, as the protocol's clients read it", content: { "application/json": { schema: ref(op.errorBody) } } };
  return {
    summary: op.summary,
    ...(op.anonymous ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body === undefined ? {} : { requestBody: { required: true, content: { "application/json": { schema: ref(op.body) } } } }),
    responses,
  };
}

/** The whole document. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(PATHS)) {
    paths[path] = Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(path, op)]));
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Verdict",
      version: "1",
      description: "Outcome tracking for fleets of AI agents: events in, verdicts out. Every /v1 route but this document needs `Authorization: Bearer <token>`. docs/api.md describes each route with examples.",
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { ...collection.components.schemas, OpenApiDocument: { type: "object", required: ["openapi", "paths"] } },
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
