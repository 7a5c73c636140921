// The request and response bodies the client speaks, taken as types from the server code that validates and
// builds them, so the two cannot drift; `import type` only, so the client loads none of the server at run time.
import type { ContractBody } from "../api/contract-fields.js";
import type { PutAgentBody, PutCustomerBody, PutRateCardBody } from "../api/routes/configuration.js";
import type { ReplayAccepted } from "../api/routes/dead-letters.js";
import type { UsageView } from "../api/routes/charges.js";
import type { InsightsView } from "../api/routes/insights.js";
import type { InsightGroup, InsightPoint, InsightTotals } from "../api/insight-series.js";
import type { OpenOutcomeBody } from "../api/routes/outcomes.js";
import type {
  CreateWebhookEndpointBody,
  PatchWebhookEndpointBody,
  WebhookEndpointCreated,
  WebhookMessageResent,
  WebhookSecretRotated,
} from "../api/routes/webhooks.js";
import type { ErrorBody, ErrorDetail } from "../errors/api-error.js";
import type { HttpErrorCode } from "../errors/codes.js";
import type { BatchAccepted, EventAccepted } from "../ingress/routes/events.js";
import type { AgentEventInput, EventProperties, TaskEventInput } from "../ingress/validate-events.js";
import type { ChargeRecord } from "../outcomes/charge.js";
import type { DeadLetterView } from "../stores/dead-letter-store.js";
import type { LoggedEvent } from "../stores/outcome-store.js";
import type { OutcomeStatus } from "../outcomes/outcome-record.js";
import type { OtlpMapping } from "../otlp/mapping-config.js";
import type { ObservationView, OutcomeView } from "../outcomes/present-outcome.js";
import type { AgentRecord } from "../records/agent.js";
import type { CustomerRecord } from "../records/customer.js";
import type { RateCardRecord } from "../records/rate-card.js";
import type { TaskRecord } from "../records/task.js";
import type { WebhookEventType } from "../records/webhook-endpoint.js";
import type { WebhookEndpointView } from "../webhooks/endpoint-store.js";
import type { AttemptView, MessageView } from "../webhooks/message.js";

/** A Variant A (task-based) event: names an outcome opened from a task. */
export type TaskEvent = TaskEventInput;
/** A Variant B (agent-based) event: an unseen `key` creates the outcome for the customer (and agent). */
export type AgentEvent = AgentEventInput;
/** Either event shape; batches may mix them. */
export type VerdictEvent = TaskEvent | AgentEvent;

export type {
  AgentRecord as Agent,
  BatchAccepted,
  ChargeRecord as Charge,
  ContractBody as PutTaskBody,
  CustomerRecord as Customer,
  DeadLetterView as DeadLetter,
  ErrorBody,
  ErrorDetail,
  EventAccepted,
  EventProperties,
  HttpErrorCode,
  LoggedEvent,
  ObservationView as Observation,
  OpenOutcomeBody,
  OutcomeStatus,
  OutcomeView as Outcome,
  PutAgentBody,
  PutCustomerBody,
  PutRateCardBody,
  RateCardRecord as RateCard,
  ReplayAccepted,
  TaskRecord as Task,
  UsageView as Usage,
  InsightsView as Insights,
  InsightGroup,
  InsightPoint,
  InsightTotals,
  CreateWebhookEndpointBody,
  PatchWebhookEndpointBody,
  WebhookEndpointView as WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEventType,
  MessageView as WebhookMessage,
  AttemptView as WebhookAttempt,
  WebhookMessageResent,
  WebhookSecretRotated,
  OtlpMapping,
};

/** PUT /v1/otlp/mapping: any fields of the mapping; those left out keep their defaults. */
export type OtlpMappingInput = Partial<OtlpMapping>;
