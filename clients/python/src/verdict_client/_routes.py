"""Typed calls for every route, blocking: each returns the answer's body or raises VerdictError. One attempt
each: retries with ordering and idempotency are what `track` is for. A `list` returns a `Paged`: `.page()`
is one page (the body, with `next_cursor`), iterating it yields every item of every page."""
from __future__ import annotations

from typing import Any, Callable, Generic, Iterator, List, Optional, TypeVar, cast

import httpx

from ._http import ACTIVE, Query, body_text, headers_for, params_of, read_answer, segment, transport_error
from ._options import Options
from .types import (
    Agent,
    AgentList,
    BatchAccepted,
    Charge,
    ChargeList,
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
    OutcomeStatus,
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
    CreateWebhookEndpointBody,
    PatchWebhookEndpointBody,
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

Item = TypeVar("Item")
Page = TypeVar("Page")
Body = TypeVar("Body")
_NO_BODY = object()


class Paged(Generic[Item, Page]):
    def __init__(self, fetch: Callable[[Optional[str]], Page], field: str) -> None:
        self._fetch = fetch
        self._field = field

    def page(self) -> Page:
        """The first page (or the page at the query's `cursor`)."""
        return self._fetch(None)

    def pages(self) -> Iterator[Page]:
        """Every page in turn, each fetched when the previous one is used up."""
        cursor: Optional[str] = None
        while True:
            body = self._fetch(cursor)
            yield body
            cursor = cast(Any, body)["next_cursor"]
            if cursor is None:
                return

    def __iter__(self) -> Iterator[Item]:
        for body in self.pages():
            yield from cast(List[Item], cast(Any, body)[self._field])


class _Caller:
    def __init__(self, http: httpx.Client, options: Options) -> None:
        self._http = http
        self._options = options

    def call(self, method: str, path: str, query: Optional[Query] = None, body: Any = _NO_BODY) -> Any:
        has_body = body is not _NO_BODY
        headers = headers_for(self._options.token, has_body, ACTIVE)
        content = body_text(body).encode() if has_body else None
        try:
            response = self._http.request(method, path, params=params_of(query), content=content, headers=headers)
        except httpx.HTTPError as error:
            raise transport_error(error, self._options.timeout, method, path) from error
        return read_answer(method, path, response)

    def paged(self, path: str, field: str, query: Query) -> Any:
        def fetch(cursor: Optional[str]) -> Any:
            return self.call("GET", path, query if cursor is None else {**query, "cursor": cursor})

        return Paged(fetch, field)


class Records(Generic[Item, Body, Page]):
    """PUT (create or replace; the stored record comes back), GET one, GET a list, DELETE."""

    def __init__(self, caller: _Caller, segment: str, field: str) -> None:
        self._caller = caller
        self._segment = segment
        self._field = field

    def put(self, key: str, body: Body) -> Item:
        return cast(Item, self._caller.call("PUT", f"/v1/{self._segment}/{segment(key)}", body=body))

    def get(self, key: str) -> Item:
        return cast(Item, self._caller.call("GET", f"/v1/{self._segment}/{segment(key)}"))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[Item, Page]:
        return cast(Paged[Item, Page], self._caller.paged(f"/v1/{self._segment}", self._field, {"limit": limit, "cursor": cursor}))

    def delete(self, key: str) -> None:
        self._caller.call("DELETE", f"/v1/{self._segment}/{segment(key)}")


class Outcomes:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def open(self, body: OpenOutcomeBody) -> Outcome:
        """Opens a Variant A outcome from a task (the same key and task again answers the existing one)."""
        return cast(Outcome, self._caller.call("POST", "/v1/outcomes", body=body))

    def get(self, key: str) -> Outcome:
        return cast(Outcome, self._caller.call("GET", f"/v1/outcomes/{segment(key)}"))

    def list(
        self,
        *,
        status: Optional[OutcomeStatus] = None,
        task_key: Optional[str] = None,
        agent_key: Optional[str] = None,
        customer_key: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Paged[Outcome, OutcomeList]:
        query = {"status": status, "task_key": task_key, "agent_key": agent_key, "customer_key": customer_key, "limit": limit, "cursor": cursor}
        return cast(Paged[Outcome, OutcomeList], self._caller.paged("/v1/outcomes", "outcomes", query))

    def events(self, key: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[LoggedEvent, OutcomeEventList]:
        """The outcome's event log, oldest first."""
        query = {"limit": limit, "cursor": cursor}
        return cast(Paged[LoggedEvent, OutcomeEventList], self._caller.paged(f"/v1/outcomes/{segment(key)}/events", "events", query))


class Events:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def send(self, event: VerdictEvent) -> EventAccepted:
        """One event, one attempt (`POST /v1/events`); a 503 raises."""
        return cast(EventAccepted, self._caller.call("POST", "/v1/events", body=event))

    def batch(self, events: List[VerdictEvent]) -> BatchAccepted:
        """Up to 500 events, one attempt; read `failed` yourself, or use `track`, which does."""
        return cast(BatchAccepted, self._caller.call("POST", "/v1/events/batch", body={"events": events}))


class Charges:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def list(
        self, *, customer_key: Optional[str] = None, from_: Optional[str] = None, to: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> Paged[Charge, ChargeList]:
        """`from_` and `to` are ISO 8601: charges confirmed at or after `from_`, and before `to`."""
        query = {"customer_key": customer_key, "from": from_, "to": to, "limit": limit, "cursor": cursor}
        return cast(Paged[Charge, ChargeList], self._caller.paged("/v1/charges", "charges", query))


class UsageRoutes:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def get(self, *, customer_key: Optional[str] = None) -> Usage:
        return cast(Usage, self._caller.call("GET", "/v1/usage", {"customer_key": customer_key}))


class DeadLetters:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def list(self, *, code: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[DeadLetter, DeadLetterList]:
        query = {"code": code, "limit": limit, "cursor": cursor}
        return cast(Paged[DeadLetter, DeadLetterList], self._caller.paged("/v1/dlq", "dead_letters", query))

    def replay(self, id: str) -> ReplayAccepted:
        """Sends the dead letter's event through its shard again."""
        return cast(ReplayAccepted, self._caller.call("POST", f"/v1/dlq/{segment(id)}/replay"))


class Webhooks:
    """Webhook endpoints (`/v1/webhook-endpoints`), their signing secrets, messages and delivery attempts."""

    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def create(self, body: CreateWebhookEndpointBody) -> WebhookEndpointCreated:
        """The answer carries the endpoint's signing secret (also at `secret(id)`)."""
        return cast(WebhookEndpointCreated, self._caller.call("POST", "/v1/webhook-endpoints", body=body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[WebhookEndpoint, WebhookEndpointList]:
        query = {"limit": limit, "cursor": cursor}
        return cast(Paged[WebhookEndpoint, WebhookEndpointList], self._caller.paged("/v1/webhook-endpoints", "webhook_endpoints", query))

    def get(self, id: str) -> WebhookEndpoint:
        return cast(WebhookEndpoint, self._caller.call("GET", f"/v1/webhook-endpoints/{segment(id)}"))

    def update(self, id: str, body: PatchWebhookEndpointBody) -> WebhookEndpoint:
        """`PATCH`: changes only the fields given."""
        return cast(WebhookEndpoint, self._caller.call("PATCH", f"/v1/webhook-endpoints/{segment(id)}", body=body))

    def delete(self, id: str) -> None:
        self._caller.call("DELETE", f"/v1/webhook-endpoints/{segment(id)}")

    def secret(self, id: str) -> WebhookSecret:
        return cast(WebhookSecret, self._caller.call("GET", f"/v1/webhook-endpoints/{segment(id)}/secret"))

    def rotate_secret(self, id: str) -> WebhookSecretRotated:
        """A new secret; the previous one keeps signing until `previous_secret_expires_at`."""
        return cast(WebhookSecretRotated, self._caller.call("POST", f"/v1/webhook-endpoints/{segment(id)}/rotate-secret"))

    def messages(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[WebhookMessage, WebhookMessageList]:
        query = {"limit": limit, "cursor": cursor}
        return cast(Paged[WebhookMessage, WebhookMessageList], self._caller.paged(f"/v1/webhook-endpoints/{segment(id)}/messages", "messages", query))

    def attempts(self, id: str, message_id: str) -> WebhookAttemptList:
        return cast(WebhookAttemptList, self._caller.call("GET", f"/v1/webhook-endpoints/{segment(id)}/messages/{segment(message_id)}/attempts"))

    def resend(self, id: str, message_id: str) -> WebhookResent:
        """Delivers the message again."""
        return cast(WebhookResent, self._caller.call("POST", f"/v1/webhook-endpoints/{segment(id)}/messages/{segment(message_id)}/resend"))


class Routes:
    def __init__(self, http: httpx.Client, options: Options) -> None:
        self._http = http
        caller = _Caller(http, options)
        self.tasks: Records[Task, PutTaskBody, TaskList] = Records(caller, "tasks", "tasks")
        self.outcomes = Outcomes(caller)
        self.events = Events(caller)
        self.agents: Records[Agent, PutAgentBody, AgentList] = Records(caller, "agents", "agents")
        self.customers: Records[Customer, PutCustomerBody, CustomerList] = Records(caller, "customers", "customers")
        self.rate_cards: Records[RateCard, PutRateCardBody, RateCardList] = Records(caller, "rate-cards", "rate_cards")
        self.charges = Charges(caller)
        self.usage = UsageRoutes(caller)
        self.dlq = DeadLetters(caller)
        self.webhooks = Webhooks(caller)
