"""Every route once: what each typed call asks of the service (method, path, query, body) and the type of its
answer. The blocking calls (`_routes.py`) and the coroutines (`_async_routes.py`) only carry these requests,
so a route's path or query is written in one place for both."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Generic, List, Optional, TypeVar

from ._http import Query, segment
from .types import (
    Agent,
    AgentList,
    BatchAccepted,
    Charge,
    ChargeList,
    CreateWebhookEndpointBody,
    Customer,
    CustomerList,
    DeadLetter,
    DeadLetterList,
    EventAccepted,
    LoggedEvent,
    OpenOutcomeBody,
    Outcome,
    OutcomeEventList,
    OutcomeList,
    PatchWebhookEndpointBody,
    PutAgentBody,
    PutCustomerBody,
    PutRateCardBody,
    PutTaskBody,
    RateCard,
    RateCardList,
    ReplayAccepted,
    Task,
    TaskList,
    Usage,
    VerdictEvent,
    WebhookAttemptList,
    WebhookEndpoint,
    WebhookEndpointCreated,
    WebhookEndpointList,
    WebhookMessage,
    WebhookMessageList,
    WebhookResent,
    WebhookSecret,
    WebhookSecretRotated,
)

Answer = TypeVar("Answer")
Item = TypeVar("Item")
Page = TypeVar("Page")
Body = TypeVar("Body")

#: `body` of a request that sends none (None is a JSON body: `null`).
NO_BODY: Any = object()


@dataclass(frozen=True)
class Request(Generic[Answer]):
    """One call: its answer's body is an `Answer`."""

    method: str
    path: str
    query: Optional[Query] = None
    body: Any = NO_BODY


@dataclass(frozen=True)
class ListRequest(Request[Page], Generic[Item, Page]):
    """A list: each answer is a `Page` whose field `items` holds `Item`s, and `next_cursor` the next page's."""

    items: str = ""

    def at(self, cursor: str) -> "ListRequest[Item, Page]":
        return replace(self, query={**(self.query or {}), "cursor": cursor})


class RecordRequests(Generic[Item, Body, Page]):
    """PUT (create or replace; the stored record comes back), GET one, GET a list, DELETE, under `/v1/{kind}`."""

    def __init__(self, kind: str, field: str) -> None:
        self._kind = kind
        self._field = field

    def put(self, key: str, body: Body) -> Request[Item]:
        return Request("PUT", f"/v1/{self._kind}/{segment(key)}", body=body)

    def get(self, key: str) -> Request[Item]:
        return Request("GET", f"/v1/{self._kind}/{segment(key)}")

    def list(self, limit: Optional[int], cursor: Optional[str]) -> ListRequest[Item, Page]:
        return ListRequest("GET", f"/v1/{self._kind}", {"limit": limit, "cursor": cursor}, items=self._field)

    def delete(self, key: str) -> Request[None]:
        return Request("DELETE", f"/v1/{self._kind}/{segment(key)}")


TASKS: RecordRequests[Task, PutTaskBody, TaskList] = RecordRequests("tasks", "tasks")
AGENTS: RecordRequests[Agent, PutAgentBody, AgentList] = RecordRequests("agents", "agents")
CUSTOMERS: RecordRequests[Customer, PutCustomerBody, CustomerList] = RecordRequests("customers", "customers")
RATE_CARDS: RecordRequests[RateCard, PutRateCardBody, RateCardList] = RecordRequests("rate-cards", "rate_cards")


def open_outcome(body: OpenOutcomeBody) -> Request[Outcome]:
    return Request("POST", "/v1/outcomes", body=body)


def get_outcome(key: str) -> Request[Outcome]:
    return Request("GET", f"/v1/outcomes/{segment(key)}")


def list_outcomes(query: Query) -> ListRequest[Outcome, OutcomeList]:
    return ListRequest("GET", "/v1/outcomes", query, items="outcomes")


def outcome_events(key: str, limit: Optional[int], cursor: Optional[str]) -> ListRequest[LoggedEvent, OutcomeEventList]:
    return ListRequest("GET", f"/v1/outcomes/{segment(key)}/events", {"limit": limit, "cursor": cursor}, items="events")


def send_event(event: VerdictEvent) -> Request[EventAccepted]:
    return Request("POST", "/v1/events", body=event)


def send_batch(events: List[VerdictEvent]) -> Request[BatchAccepted]:
    return Request("POST", "/v1/events/batch", body={"events": events})


def list_charges(query: Query) -> ListRequest[Charge, ChargeList]:
    return ListRequest("GET", "/v1/charges", query, items="charges")


def get_usage(customer_key: Optional[str]) -> Request[Usage]:
    return Request("GET", "/v1/usage", {"customer_key": customer_key})


def list_dead_letters(query: Query) -> ListRequest[DeadLetter, DeadLetterList]:
    return ListRequest("GET", "/v1/dlq", query, items="dead_letters")


def replay_dead_letter(id: str) -> Request[ReplayAccepted]:
    return Request("POST", f"/v1/dlq/{segment(id)}/replay")


def _endpoint(id: str) -> str:
    return f"/v1/webhook-endpoints/{segment(id)}"


def create_webhook(body: CreateWebhookEndpointBody) -> Request[WebhookEndpointCreated]:
    return Request("POST", "/v1/webhook-endpoints", body=body)


def list_webhooks(limit: Optional[int], cursor: Optional[str]) -> ListRequest[WebhookEndpoint, WebhookEndpointList]:
    return ListRequest("GET", "/v1/webhook-endpoints", {"limit": limit, "cursor": cursor}, items="webhook_endpoints")


def get_webhook(id: str) -> Request[WebhookEndpoint]:
    return Request("GET", _endpoint(id))


def update_webhook(id: str, body: PatchWebhookEndpointBody) -> Request[WebhookEndpoint]:
    return Request("PATCH", _endpoint(id), body=body)


def delete_webhook(id: str) -> Request[None]:
    return Request("DELETE", _endpoint(id))


def webhook_secret(id: str) -> Request[WebhookSecret]:
    return Request("GET", f"{_endpoint(id)}/secret")


def rotate_webhook_secret(id: str) -> Request[WebhookSecretRotated]:
    return Request("POST", f"{_endpoint(id)}/rotate-secret")


def webhook_messages(id: str, limit: Optional[int], cursor: Optional[str]) -> ListRequest[WebhookMessage, WebhookMessageList]:
    return ListRequest("GET", f"{_endpoint(id)}/messages", {"limit": limit, "cursor": cursor}, items="messages")


def webhook_attempts(id: str, message_id: str) -> Request[WebhookAttemptList]:
    return Request("GET", f"{_endpoint(id)}/messages/{segment(message_id)}/attempts")


def resend_webhook_message(id: str, message_id: str) -> Request[WebhookResent]:
    return Request("POST", f"{_endpoint(id)}/messages/{segment(message_id)}/resend")
