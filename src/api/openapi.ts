// The OpenAPI 3.1 document of the HTTP API, served at GET /v1/openapi.json without a token. The schemas are
// generated at build time by typia from the very types the routes validate and answer with, so they cannot
// drift from the code; the paths are listed here, and openapi-operation.ts gives each its operationId and error
// answers. test/ingress/openapi.test.ts checks that every route the app serves is listed and that real answers
// validate against the schemas; src/api/openapi.test.ts that `redocly lint` finds nothing.
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
import type { OutcomeView } from "../outcomes/present-outcome.js";
import type { UsageView } from "./routes/charges.js";
import type { InsightsView } from "./routes/insights.js";
import type { PutAgentBody, PutCustomerBody, PutRateCardBody } from "./routes/configuration.js";
import type { ReplayAccepted } from "./routes/dead-letters.js";
import type { OpenOutcomeBody } from "./routes/outcomes.js";
import type { CreateWebhookEndpointBody, PatchWebhookEndpointBody } from "./routes/webhooks.js";
import type { WebhookEndpointView } from "../webhooks/endpoint-store.js";
import type { AttemptView, MessageView } from "../webhooks/message-store.js";
import { operation, type Method, type Operation } from "./openapi-operation.js";

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
/** PUT /v1/otlp/mapping: any fields of the mapping; those left out keep their defaults (typia names it PartialOtlpMapping). */
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
    InsightsView,
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

const PAGING = {
  limit: "Items per page, 1 to 1000 (default 100).",
  cursor: "The `next_cursor` of the previous page (opaque; a cursor the API did not hand out for this list is 400 VALIDATION_ERROR).",
};

const EVENT_ERRORS = {
  429: "QUOTA_EXCEEDED: past the account's events per second; `Retry-After` says when to try again",
  503: "QUEUE_REJECTED or QUEUE_UNCONFIRMED: the event was not durably enqueued; retry it with the same idempotency key",
};

const STORE_QUOTA = { 403: "QUOTA_EXCEEDED: creating it would pass the account's quota of such records (`quota`, `limit`)" };

/** The configuration records' four routes: PUT (201 created, 200 replaced), GET, DELETE (204), GET list. */
function recordPaths(segment: string, what: string, name: string, put: string, record: string, list: string): Record<string, Partial<Record<Method, Operation>>> {
  return {
    [`/v1/${segment}/{key}`]: {
      put: { id: `put${name}`, summary: `Create or replace a ${what}`, body: put, responses: { 200: record, 201: record }, errors: STORE_QUOTA },
      get: { id: `get${name}`, summary: `One ${what}`, responses: { 200: record } },
      delete: { id: `delete${name}`, summary: `Delete a ${what}`, responses: { 204: null } },
    },
    [`/v1/${segment}`]: {
      get: { id: `list${name}s`, summary: `List ${what}s by key, a page at a time`, responses: { 200: list }, query: PAGING },
    },
  };
}

const PATHS: Record<string, Partial<Record<Method, Operation>>> = {
  "/v1/openapi.json": { get: { id: "getOpenApiDocument", summary: "This document (no token needed)", responses: { 200: "OpenApiDocument" }, anonymous: true } },
  "/v1/events": { post: { id: "submitEvent", summary: "Submit one event; 202 once it is durably enqueued, 429 QUOTA_EXCEEDED past the account's events per second", body: "Event", responses: { 202: "EventAccepted" }, errors: EVENT_ERRORS } },
  "/v1/events/batch": { post: { id: "submitEventBatch", summary: "Submit up to 500 events; each accepted one is enqueued, the others listed in `failed` (`rate_limited`: past the account's events per second)", body: "EventBatch", responses: { 202: "BatchAccepted" }, errors: { 429: EVENT_ERRORS[429] } } },
  "/v1/traces": {
    post: {
      id: "exportTraces",
      summary: "OTLP/HTTP trace export (application/x-protobuf or application/json, gzip or not): GenAI spans become events (docs/otlp.md); shown here in OTLP/JSON",
      body: "ExportTraceServiceRequestJson",
      responses: { 200: "ExportTraceServiceResponseJson" },
      errorBody: "RpcStatusJson",
      errors: { 403: "The token's account is not allowed (google.rpc.Status)", 415: "A Content-Type other than application/x-protobuf or application/json", 429: "Past the account's events per second (Retry-After)" },
    },
  },
  "/v1/otlp/mapping": {
    get: { id: "getOtlpMapping", summary: "The account's OTLP mapping: which attributes name outcomes, tasks, agents and customers", responses: { 200: "OtlpMapping" } },
    put: { id: "putOtlpMapping", summary: "Override the OTLP mapping (fields left out keep their defaults)", body: "PartialOtlpMapping", responses: { 200: "OtlpMapping", 201: "OtlpMapping" } },
  },
  ...recordPaths("tasks", "task", "Task", "ContractBody", "TaskRecord", "TaskList"),
  "/v1/outcomes": {
    post: {
      id: "openOutcome",
      summary: "Open a Variant A outcome from a task (the same key and task again: 200 with the existing one)", body: "OpenOutcomeBody",
      responses: { 200: "OutcomeView", 201: "OutcomeView" },
      errors: { 404: "TASK_NOT_FOUND: no task `task_key`", 409: "OUTCOME_EXISTS: the key is taken by an outcome not opened from this task" },
    },
    get: {
      id: "listOutcomes",
      summary: "List outcomes, newest first, or sorted by a score",
      responses: { 200: "OutcomeList" },
      query: {
        status: "OPEN, CONFIRMED or FAILED.",
        task_key: "Outcomes of one task.",
        agent_key: "Outcomes of one agent.",
        customer_key: "Outcomes of one customer.",
        failed_clause: "A clause id from GET /v1/insights (`failing_clauses[].clause`): only FAILED outcomes with that clause false at the verdict, the outcomes its count counts.",
        sort: "trajectory, anomaly or novelty: sort by that score.",
        order: "asc or desc (with sort; default desc).",
        ...PAGING,
      },
    },
  },
  "/v1/outcomes/{key}": { get: { id: "getOutcome", summary: "One outcome, with its condition annotated and its progress", responses: { 200: "OutcomeView" } } },
  "/v1/outcomes/{key}/events": { get: { id: "listOutcomeEvents", summary: "The outcome's applied events, oldest first", responses: { 200: "OutcomeEventList" }, query: PAGING } },
  ...recordPaths("agents", "agent", "Agent", "PutAgentBody", "AgentRecord", "AgentList"),
  ...recordPaths("customers", "customer", "Customer", "PutCustomerBody", "CustomerRecord", "CustomerList"),
  ...recordPaths("rate-cards", "rate card", "RateCard", "PutRateCardBody", "RateCardRecord", "RateCardList"),
  "/v1/dlq": { get: { id: "listDeadLetters", summary: "Dead letters: events that could not be applied, with their code", responses: { 200: "DeadLetterList" }, query: { code: "Only this dead-letter code.", ...PAGING } } },
  "/v1/dlq/{id}/replay": { post: { id: "replayDeadLetter", summary: "Send a dead letter's event through its shard again", responses: { 202: "ReplayAccepted" }, errors: { 409: "DEAD_LETTER_TRUNCATED: only a prefix of its event was kept, so it cannot be replayed" } } },
  "/v1/charges": {
    get: {
      id: "listCharges",
      summary: "Charges of confirmed Variant B outcomes",
      responses: { 200: "ChargeList" },
      query: { customer_key: "One customer's charges.", from: "ISO 8601: confirmed at or after.", to: "ISO 8601: confirmed before.", ...PAGING },
    },
  },
  "/v1/insights": {
    get: {
      id: "getInsights",
      summary: "Time series per task, agent or customer from hourly rollups: outcomes opened, verdicts, charges, dead letters, failing clauses",
      responses: { 200: "InsightsView" },
      query: {
        group_by: "Required: task, agent or customer.",
        key: "Only this task, agent or customer (answered with zeros where it has nothing).",
        from: "RFC 3339: the first bucket is the one holding it (default: to minus 24 hours, 30 days or 12 weeks, by bucket).",
        to: "RFC 3339, exclusive (default now); at most 1000 buckets after from.",
        bucket: "hour, day (default) or week (from Monday).",
        tz: "IANA time zone where days and weeks start at midnight (default UTC).",
        limit: "Most groups answered, busiest first, 1 to 1000 (default 100).",
        percentiles: "series: every point also carries its time to verdict (time_to_verdict_ms p50 and p90); off by default.",
      },
    },
  },
  "/v1/usage": { get: { id: "getUsage", summary: "Billable events per customer", responses: { 200: "UsageView" }, query: { customer_key: "One customer only." } } },
  "/v1/webhook-endpoints": {
    post: { id: "createWebhookEndpoint", summary: "Create a webhook endpoint (Standard Webhooks); its signing secret is in the answer", body: "CreateWebhookEndpointBody", responses: { 201: "WebhookEndpointCreated" } },
    get: { id: "listWebhookEndpoints", summary: "List webhook endpoints by id, a page at a time", responses: { 200: "WebhookEndpointList" }, query: PAGING },
  },
  "/v1/webhook-endpoints/{id}": {
    get: { id: "getWebhookEndpoint", summary: "One webhook endpoint", responses: { 200: "WebhookEndpointView" } },
    patch: { id: "updateWebhookEndpoint", summary: "Change an endpoint's url, event types, description or enabled flag", body: "PatchWebhookEndpointBody", responses: { 200: "WebhookEndpointView" } },
    delete: { id: "deleteWebhookEndpoint", summary: "Delete a webhook endpoint", responses: { 204: null } },
  },
  "/v1/webhook-endpoints/{id}/secret": { get: { id: "getWebhookEndpointSecret", summary: "The endpoint's signing secret", responses: { 200: "WebhookSecret" } } },
  "/v1/webhook-endpoints/{id}/rotate-secret": { post: { id: "rotateWebhookEndpointSecret", summary: "A new signing secret; the previous one keeps signing for 24 h", responses: { 200: "WebhookSecretRotated" } } },
  "/v1/webhook-endpoints/{id}/messages": { get: { id: "listWebhookMessages", summary: "The endpoint's messages, each with its status (pending, delivered, failed)", responses: { 200: "WebhookMessageList" }, query: PAGING } },
  "/v1/webhook-endpoints/{id}/messages/{message_id}/attempts": { get: { id: "listWebhookMessageAttempts", summary: "Delivery attempts of one message", responses: { 200: "WebhookAttemptList" } } },
  "/v1/webhook-endpoints/{id}/messages/{message_id}/resend": { post: { id: "resendWebhookMessage", summary: "Deliver a message again", responses: { 202: "WebhookResent" } } },
};

/** "/v1/outcomes/:key" -> "/v1/outcomes/{key}". */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:(\w+)/g, "{$1}");
}

/** The whole document. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(PATHS)) {
    paths[path] = Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(method as Method, path, op)]));
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Verdict",
      version: "1",
      description: "Outcome tracking for fleets of AI agents: events in, verdicts out. Every /v1 route but this document needs `Authorization: Bearer <token>`. docs/api.md describes each route with examples.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // Relative: the service that serves this document is the one it describes, wherever it runs.
    servers: [{ url: "/", description: "The service that served this document" }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { ...collection.components.schemas, OpenApiDocument: { type: "object", properties: { openapi: { type: "string" }, paths: { type: "object" } }, required: ["openapi", "paths"] } },
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
