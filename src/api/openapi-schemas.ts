// The schemas of the OpenAPI document, generated at build time by typia from the very types the routes
// validate and answer with, so they cannot drift from the code; the list bodies are named here so the
// document names them.
import typia from "typia";
import type { ErrorBody } from "../errors/api-error.js";
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
import type { AttemptView, MessageView } from "../webhooks/message.js";

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

export const collection = typia.json.schemas<
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
