"""The request and response bodies of the service's API, as TypedDicts named after the schemas of its
`GET /v1/openapi.json` (tests/test_openapi_types.py checks every field name and which are required against
the served document, so the two cannot drift). Optional fields sit in a `total=False` subclass of the
required ones, which Python 3.9 reads without typing_extensions."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

OutcomeStatus = Literal["OPEN", "CONFIRMED", "FAILED"]
AttributionMethod = Literal["max", "first", "last", "min", "sum"]
WebhookEventType = Literal["outcome.confirmed", "outcome.failed", "dead_letter.created", "charge.created"]
MessageStatus = Literal["pending", "delivered", "failed"]
#: A condition in the expression language, or its JSON form.
Condition = Union[str, Dict[str, Any]]


class ErrorDetail(TypedDict):
    path: str
    message: str


# Events.


class _TaskEventInputRequired(TypedDict):
    outcome_key: str
    action: str


class TaskEventInput(_TaskEventInputRequired, total=False):
    """A Variant A event: names an outcome opened from a task."""

    properties: Dict[str, Any]
    idempotency_key: str


class _AgentEventInputRequired(TypedDict):
    key: str
    customer_key: str
    action: str


class AgentEventInput(_AgentEventInputRequired, total=False):
    """A Variant B event: an unseen `key` creates the outcome for the customer (and agent)."""

    agent_key: str
    properties: Dict[str, Any]
    idempotency_key: str


#: Either event shape; batches may mix them.
VerdictEvent = Union[TaskEventInput, AgentEventInput]


class EventAccepted(TypedDict):
    accepted: Literal[True]
    duplicate: bool


class BatchFailure(TypedDict):
    index: int
    #: `rate_limited`: beyond the account's events-per-second quota, never enqueued; `track` sends it again.
    reason: Literal["rejected", "unconfirmed", "rate_limited"]


class BatchAccepted(TypedDict):
    accepted: int
    failed: List[BatchFailure]
    duplicates: List[int]


# Tasks (Variant A templates).


class _ContractBodyRequired(TypedDict):
    name: str
    condition: Condition


class ContractBody(_ContractBodyRequired, total=False):
    """The body of `PUT /v1/tasks/{key}`."""

    goal: Optional[str]
    settlement_period: Optional[str]


class TaskRecord(TypedDict):
    key: str
    name: str
    goal: Optional[str]
    condition: str
    settlement_period: Optional[str]


class TaskList(TypedDict):
    tasks: List[TaskRecord]
    next_cursor: Optional[str]


# Outcomes.


class _OpenOutcomeBodyRequired(TypedDict):
    key: str
    task_key: str


class OpenOutcomeBody(_OpenOutcomeBodyRequired, total=False):
    settles_at: Optional[str]


class ObservationView(TypedDict):
    count: int
    last_value: Any
    last_at: str


class OutcomeView(TypedDict):
    key: str
    status: OutcomeStatus
    goal: Optional[str]
    progress: float
    settles_at: Optional[str]
    condition: str
    observations: Dict[str, ObservationView]
    scores: Dict[str, Any]


class OutcomeList(TypedDict):
    outcomes: List[OutcomeView]
    next_cursor: Optional[str]


class LoggedEvent(TypedDict):
    id: str
    action: str
    properties: Dict[str, Any]
    idempotency_key: Optional[str]
    received_at: str


class OutcomeEventList(TypedDict):
    events: List[LoggedEvent]
    next_cursor: Optional[str]


# Agents, customers, rate cards (Variant B configuration).


class _PutAgentBodyRequired(TypedDict):
    name: str
    condition: Condition


class PutAgentBody(_PutAgentBodyRequired, total=False):
    attribution_method: AttributionMethod
    goal: Optional[str]
    settlement_period: Optional[str]


class AgentRecord(TypedDict):
    key: str
    name: str
    goal: Optional[str]
    condition: str
    settlement_period: Optional[str]
    attribution_method: AttributionMethod


class AgentList(TypedDict):
    agents: List[AgentRecord]
    next_cursor: Optional[str]


class _PutCustomerBodyRequired(TypedDict):
    name: str


class PutCustomerBody(_PutCustomerBodyRequired, total=False):
    rate_card_key: Optional[str]


class CustomerRecord(TypedDict):
    key: str
    name: str
    rate_card_key: Optional[str]


class CustomerList(TypedDict):
    customers: List[CustomerRecord]
    next_cursor: Optional[str]


class RateCardEntry(TypedDict):
    agent_key: str
    unit_amount: float


class PutRateCardBody(TypedDict):
    currency: str
    entries: List[RateCardEntry]


class RateCardRecord(TypedDict):
    key: str
    currency: str
    entries: List[RateCardEntry]


class RateCardList(TypedDict):
    rate_cards: List[RateCardRecord]
    next_cursor: Optional[str]


# Dead letters, charges, usage.


class _SubmittedEventRequired(TypedDict):
    action: str


class SubmittedEvent(_SubmittedEventRequired, total=False):
    outcome_key: str
    key: str
    properties: Dict[str, Any]
    idempotency_key: str
    agent_key: str
    customer_key: str


class TruncatedEvent(TypedDict):
    """What Redis keeps of an oversized dead letter's properties: their size and the start of their JSON."""

    properties_bytes: int
    properties_prefix: str


class _DeadLetterViewRequired(TypedDict):
    id: str
    code: str
    message: str
    outcome_key: str
    event: SubmittedEvent
    received_at: str
    dead_lettered_at: str
    attempts: int


class DeadLetterView(_DeadLetterViewRequired, total=False):
    event_truncated: TruncatedEvent


class DeadLetterList(TypedDict):
    dead_letters: List[DeadLetterView]
    next_cursor: Optional[str]


class ReplayAccepted(TypedDict):
    replayed: Literal[True]
    id: str


class ChargeRecord(TypedDict):
    id: str
    outcome_key: str
    customer_key: str
    agent_key: str
    rate_card_key: str
    currency: str
    unit_amount: float
    attribution: float
    amount: float
    confirmed_at: str


class ChargeList(TypedDict):
    charges: List[ChargeRecord]
    next_cursor: Optional[str]


class CustomerUsage(TypedDict):
    customer_key: str
    billable_events: int


class UsageView(TypedDict):
    usage: List[CustomerUsage]


# Webhook endpoints (Standard Webhooks; docs/webhooks.md).


class _CreateWebhookEndpointBodyRequired(TypedDict):
    url: str


class CreateWebhookEndpointBody(_CreateWebhookEndpointBodyRequired, total=False):
    #: None (or absent): every event type.
    event_types: Optional[List[WebhookEventType]]
    description: Optional[str]


class PatchWebhookEndpointBody(TypedDict, total=False):
    url: str
    event_types: Optional[List[WebhookEventType]]
    description: Optional[str]
    enabled: bool


class WebhookEndpointView(TypedDict):
    id: str
    url: str
    event_types: Optional[List[WebhookEventType]]
    description: Optional[str]
    enabled: bool
    created_at: str


class WebhookEndpointCreated(WebhookEndpointView):
    #: `whsec_` + base64 of 32 random bytes: shown on creation and at `/secret` only.
    secret: str


class WebhookEndpointList(TypedDict):
    webhook_endpoints: List[WebhookEndpointView]
    next_cursor: Optional[str]


class WebhookSecret(TypedDict):
    secret: str


class WebhookSecretRotated(TypedDict):
    secret: str
    #: Until then the previous secret signs alongside the new one.
    previous_secret_expires_at: str


class MessageView(TypedDict):
    id: str
    event_type: str
    status: MessageStatus
    attempts: int
    next_attempt_at: Optional[str]
    created_at: str
    payload: Any


class WebhookMessageList(TypedDict):
    messages: List[MessageView]
    next_cursor: Optional[str]


class AttemptView(TypedDict):
    timestamp: str
    status_code: Optional[int]
    error: Optional[str]
    duration_ms: float
    response: str


class WebhookAttemptList(TypedDict):
    attempts: List[AttemptView]


class WebhookResent(TypedDict):
    resent: Literal[True]
    id: str


# The names the client's calls speak of.
TaskEvent = TaskEventInput
AgentEvent = AgentEventInput
PutTaskBody = ContractBody
Task = TaskRecord
Outcome = OutcomeView
Observation = ObservationView
Agent = AgentRecord
Customer = CustomerRecord
RateCard = RateCardRecord
DeadLetter = DeadLetterView
Charge = ChargeRecord
Usage = UsageView
WebhookEndpoint = WebhookEndpointView
WebhookMessage = MessageView
WebhookAttempt = AttemptView
