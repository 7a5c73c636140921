// The paths of the OpenAPI document: every route the API serves, with its summary, body, answers and
// errors; openapi-operation.ts turns each entry into an operation.
import type { Method, Operation } from "./openapi-operation.js";

const PAGING = {
  limit: "Items per page, 1 to 1000 (default 100).",
  cursor:
    "The `next_cursor` of the previous page (opaque; a cursor the API did not hand out for this list is 400 VALIDATION_ERROR).",
};

const EVENT_ERRORS = {
  429: "QUOTA_EXCEEDED: past the account's events per second; `Retry-After` says when to try again",
  503: "QUEUE_REJECTED or QUEUE_UNCONFIRMED: the event was not durably enqueued; retry it with the same idempotency key",
};

const STORE_QUOTA = {
  403: "QUOTA_EXCEEDED: creating it would pass the account's quota of such records (`quota`, `limit`)",
};

/** The configuration records' four routes: PUT (201 created, 200 replaced), GET, DELETE (204), GET list. */
function recordPaths(
  segment: string,
  what: string,
  name: string,
  put: string,
  record: string,
  list: string,
): Record<string, Partial<Record<Method, Operation>>> {
  return {
    [`/v1/${segment}/{key}`]: {
      put: {
        id: `put${name}`,
        summary: `Create or replace a ${what}`,
        body: put,
        responses: { 200: record, 201: record },
        errors: STORE_QUOTA,
      },
      get: { id: `get${name}`, summary: `One ${what}`, responses: { 200: record } },
      delete: { id: `delete${name}`, summary: `Delete a ${what}`, responses: { 204: null } },
    },
    [`/v1/${segment}`]: {
      get: {
        id: `list${name}s`,
        summary: `List ${what}s by key, a page at a time`,
        responses: { 200: list },
        query: PAGING,
      },
    },
  };
}

export const PATHS: Record<string, Partial<Record<Method, Operation>>> = {
  "/v1/openapi.json": {
    get: {
      id: "getOpenApiDocument",
      summary: "This document (no token needed)",
      responses: { 200: "OpenApiDocument" },
      anonymous: true,
    },
  },
  "/v1/events": {
    post: {
      id: "submitEvent",
      summary:
        "Submit one event; 202 once it is durably enqueued, 429 QUOTA_EXCEEDED past the account's events per second",
      body: "Event",
      responses: { 202: "EventAccepted" },
      errors: EVENT_ERRORS,
    },
  },
  "/v1/events/batch": {
    post: {
      id: "submitEventBatch",
      summary:
        "Submit up to 500 events; each accepted one is enqueued, the others listed in `failed` (`rate_limited`: past the account's events per second)",
      body: "EventBatch",
      responses: { 202: "BatchAccepted" },
      errors: { 429: EVENT_ERRORS[429] },
    },
  },
  "/v1/traces": {
    post: {
      id: "exportTraces",
      summary:
        "OTLP/HTTP trace export (application/x-protobuf or application/json, gzip or not): GenAI spans become events (docs/otlp.md); shown here in OTLP/JSON",
      body: "ExportTraceServiceRequestJson",
      responses: { 200: "ExportTraceServiceResponseJson" },
      errorBody: "RpcStatusJson",
      errors: {
        403: "The token's account is not allowed (google.rpc.Status)",
        415: "A Content-Type other than application/x-protobuf or application/json",
        429: "Past the account's events per second (Retry-After)",
      },
    },
  },
  "/v1/otlp/mapping": {
    get: {
      id: "getOtlpMapping",
      summary: "The account's OTLP mapping: which attributes name outcomes, tasks, agents and customers",
      responses: { 200: "OtlpMapping" },
    },
    put: {
      id: "putOtlpMapping",
      summary: "Override the OTLP mapping (fields left out keep their defaults)",
      body: "PartialOtlpMapping",
      responses: { 200: "OtlpMapping", 201: "OtlpMapping" },
    },
  },
  ...recordPaths("tasks", "task", "Task", "ContractBody", "TaskRecord", "TaskList"),
  "/v1/outcomes": {
    post: {
      id: "openOutcome",
      summary: "Open a Variant A outcome from a task (the same key and task again: 200 with the existing one)",
      body: "OpenOutcomeBody",
      responses: { 200: "OutcomeView", 201: "OutcomeView" },
      errors: {
        404: "TASK_NOT_FOUND: no task `task_key`",
        409: "OUTCOME_EXISTS: the key is taken by an outcome not opened from this task",
      },
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
        failed_clause:
          "A clause id from GET /v1/insights (`failing_clauses[].clause`): only FAILED outcomes with that clause false at the verdict, the outcomes its count counts.",
        sort: "trajectory, anomaly or novelty: sort by that score.",
        order: "asc or desc (with sort; default desc).",
        ...PAGING,
      },
    },
  },
  "/v1/outcomes/{key}": {
    get: {
      id: "getOutcome",
      summary: "One outcome, with its condition annotated and its progress",
      responses: { 200: "OutcomeView" },
    },
  },
  "/v1/outcomes/{key}/events": {
    get: {
      id: "listOutcomeEvents",
      summary: "The outcome's applied events, oldest first",
      responses: { 200: "OutcomeEventList" },
      query: PAGING,
    },
  },
  ...recordPaths("agents", "agent", "Agent", "PutAgentBody", "AgentRecord", "AgentList"),
  ...recordPaths("customers", "customer", "Customer", "PutCustomerBody", "CustomerRecord", "CustomerList"),
  ...recordPaths("rate-cards", "rate card", "RateCard", "PutRateCardBody", "RateCardRecord", "RateCardList"),
  "/v1/dlq": {
    get: {
      id: "listDeadLetters",
      summary: "Dead letters: events that could not be applied, with their code",
      responses: { 200: "DeadLetterList" },
      query: { code: "Only this dead-letter code.", ...PAGING },
    },
  },
  "/v1/dlq/{id}/replay": {
    post: {
      id: "replayDeadLetter",
      summary: "Send a dead letter's event through its shard again",
      responses: { 202: "ReplayAccepted" },
      errors: { 409: "DEAD_LETTER_TRUNCATED: only a prefix of its event was kept, so it cannot be replayed" },
    },
  },
  "/v1/charges": {
    get: {
      id: "listCharges",
      summary: "Charges of confirmed Variant B outcomes",
      responses: { 200: "ChargeList" },
      query: {
        customer_key: "One customer's charges.",
        from: "ISO 8601: confirmed at or after.",
        to: "ISO 8601: confirmed before.",
        ...PAGING,
      },
    },
  },
  "/v1/insights": {
    get: {
      id: "getInsights",
      summary:
        "Time series per task, agent or customer from hourly rollups: outcomes opened, verdicts, charges, dead letters, failing clauses",
      responses: { 200: "InsightsView" },
      errors: {
        429: "QUOTA_EXCEEDED (`insight_reads`): the account has its reads running in this process and more waiting; `Retry-After` says when to try again",
      },
      query: {
        group_by: "Required: task, agent or customer.",
        key: "Only this task, agent or customer (answered with zeros where it has nothing).",
        from: "RFC 3339: the first bucket is the one holding it (default: to minus 24 hours, 30 days or 12 weeks, by bucket).",
        to: "RFC 3339, exclusive (default now); at most 1000 buckets after from.",
        bucket: "hour, day (default) or week (from Monday).",
        tz: "IANA time zone where days and weeks start at midnight (default UTC).",
        limit: "Most groups answered, busiest first, 1 to 1000 (default 100).",
        percentiles:
          "series: every point also carries its time to verdict (time_to_verdict_ms p50 and p90); off by default.",
      },
    },
  },
  "/v1/usage": {
    get: {
      id: "getUsage",
      summary: "Billable events per customer",
      responses: { 200: "UsageView" },
      query: { customer_key: "One customer only." },
    },
  },
  "/v1/webhook-endpoints": {
    post: {
      id: "createWebhookEndpoint",
      summary: "Create a webhook endpoint (Standard Webhooks); its signing secret is in the answer",
      body: "CreateWebhookEndpointBody",
      responses: { 201: "WebhookEndpointCreated" },
    },
    get: {
      id: "listWebhookEndpoints",
      summary: "List webhook endpoints by id, a page at a time",
      responses: { 200: "WebhookEndpointList" },
      query: PAGING,
    },
  },
  "/v1/webhook-endpoints/{id}": {
    get: { id: "getWebhookEndpoint", summary: "One webhook endpoint", responses: { 200: "WebhookEndpointView" } },
    patch: {
      id: "updateWebhookEndpoint",
      summary: "Change an endpoint's url, event types, description or enabled flag",
      body: "PatchWebhookEndpointBody",
      responses: { 200: "WebhookEndpointView" },
    },
    delete: { id: "deleteWebhookEndpoint", summary: "Delete a webhook endpoint", responses: { 204: null } },
  },
  "/v1/webhook-endpoints/{id}/secret": {
    get: {
      id: "getWebhookEndpointSecret",
      summary: "The endpoint's signing secret",
      responses: { 200: "WebhookSecret" },
    },
  },
  "/v1/webhook-endpoints/{id}/rotate-secret": {
    post: {
      id: "rotateWebhookEndpointSecret",
      summary: "A new signing secret; the previous one keeps signing for 24 h",
      responses: { 200: "WebhookSecretRotated" },
    },
  },
  "/v1/webhook-endpoints/{id}/messages": {
    get: {
      id: "listWebhookMessages",
      summary: "The endpoint's messages, each with its status (pending, delivered, failed)",
      responses: { 200: "WebhookMessageList" },
      query: PAGING,
    },
  },
  "/v1/webhook-endpoints/{id}/messages/{message_id}/attempts": {
    get: {
      id: "listWebhookMessageAttempts",
      summary: "Delivery attempts of one message",
      responses: { 200: "WebhookAttemptList" },
    },
  },
  "/v1/webhook-endpoints/{id}/messages/{message_id}/resend": {
    post: { id: "resendWebhookMessage", summary: "Deliver a message again", responses: { 202: "WebhookResent" } },
  },
};
