"""Typed calls for every route, blocking: each returns the answer's body or raises VerdictError. One attempt
each: retries with ordering and idempotency are what `track` is for. A `list` returns a `Paged`: `.page()`
is one page (the body, with `next_cursor`), iterating it yields every item of every page. What each call asks
of the service is in `_requests.py`, shared with the coroutines."""
from __future__ import annotations

from typing import Any, Generic, Iterator, List, Optional, TypeVar, cast

import httpx

from . import _requests as requests
from ._http import ACTIVE, body_text, headers_for, params_of, read_answer, transport_error
from ._options import Options
from ._requests import NO_BODY, ListRequest, RecordRequests, Request
from .types import (
    BatchAccepted,
    Charge,
    ChargeList,
    CreateWebhookEndpointBody,
    DeadLetter,
    DeadLetterList,
    EventAccepted,
    LoggedEvent,
    OpenOutcomeBody,
    Outcome,
    OutcomeEventList,
    OutcomeList,
    OutcomeStatus,
    PatchWebhookEndpointBody,
    ReplayAccepted,
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


class _Caller:
    def __init__(self, http: httpx.Client, options: Options) -> None:
        self._http = http
        self._options = options

    def send(self, request: Request[Answer]) -> Answer:
        method, path, body = request.method, request.path, request.body
        has_body = body is not NO_BODY
        headers = headers_for(self._options.token, has_body, ACTIVE)
        content = body_text(body).encode() if has_body else None
        try:
            response = self._http.request(method, path, params=params_of(request.query), content=content, headers=headers)
        except httpx.HTTPError as error:
            raise transport_error(error, self._options.timeout, method, path) from error
        return cast(Answer, read_answer(method, path, response))


class Paged(Generic[Item, Page]):
    def __init__(self, caller: _Caller, request: ListRequest[Item, Page]) -> None:
        self._caller = caller
        self._request = request

    def page(self) -> Page:
        """The first page (or the page at the query's `cursor`)."""
        return self._caller.send(self._request)

    def pages(self) -> Iterator[Page]:
        """Every page in turn, each fetched when the previous one is used up."""
        request = self._request
        while True:
            body = self._caller.send(request)
            yield body
            cursor = cast(Any, body)["next_cursor"]
            if cursor is None:
                return
            request = request.at(cursor)

    def __iter__(self) -> Iterator[Item]:
        for body in self.pages():
            yield from cast(List[Item], cast(Any, body)[self._request.items])


class Records(Generic[Item, Body, Page]):
    """PUT (create or replace; the stored record comes back), GET one, GET a list, DELETE."""

    def __init__(self, caller: _Caller, requests: RecordRequests[Item, Body, Page]) -> None:
        self._caller = caller
        self._requests = requests

    def put(self, key: str, body: Body) -> Item:
        return self._caller.send(self._requests.put(key, body))

    def get(self, key: str) -> Item:
        return self._caller.send(self._requests.get(key))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[Item, Page]:
        return Paged(self._caller, self._requests.list(limit, cursor))

    def delete(self, key: str) -> None:
        self._caller.send(self._requests.delete(key))


class Outcomes:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def open(self, body: OpenOutcomeBody) -> Outcome:
        """Opens a Variant A outcome from a task (the same key and task again answers the existing one)."""
        return self._caller.send(requests.open_outcome(body))

    def get(self, key: str) -> Outcome:
        return self._caller.send(requests.get_outcome(key))

    def list(
        self,
        *,
        status: Optional[OutcomeStatus] = None,
        task_key: Optional[str] = None,
        agent_key: Optional[str] = None,
        customer_key: Optional[str] = None,
        failed_clause: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Paged[Outcome, OutcomeList]:
        query = {"status": status, "task_key": task_key, "agent_key": agent_key, "customer_key": customer_key, "failed_clause": failed_clause, "limit": limit, "cursor": cursor}
        return Paged(self._caller, requests.list_outcomes(query))

    def events(self, key: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[LoggedEvent, OutcomeEventList]:
        """The outcome's event log, oldest first."""
        return Paged(self._caller, requests.outcome_events(key, limit, cursor))


class Events:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def send(self, event: VerdictEvent) -> EventAccepted:
        """One event, one attempt (`POST /v1/events`); a 503 raises."""
        return self._caller.send(requests.send_event(event))

    def batch(self, events: List[VerdictEvent]) -> BatchAccepted:
        """Up to 500 events, one attempt; read `failed` yourself, or use `track`, which does."""
        return self._caller.send(requests.send_batch(events))


class Charges:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def list(
        self, *, customer_key: Optional[str] = None, from_: Optional[str] = None, to: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> Paged[Charge, ChargeList]:
        """`from_` and `to` are ISO 8601: charges confirmed at or after `from_`, and before `to`."""
        query = {"customer_key": customer_key, "from": from_, "to": to, "limit": limit, "cursor": cursor}
        return Paged(self._caller, requests.list_charges(query))


class UsageRoutes:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def get(self, *, customer_key: Optional[str] = None) -> Usage:
        return self._caller.send(requests.get_usage(customer_key))


class DeadLetters:
    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def list(self, *, code: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[DeadLetter, DeadLetterList]:
        return Paged(self._caller, requests.list_dead_letters({"code": code, "limit": limit, "cursor": cursor}))

    def replay(self, id: str) -> ReplayAccepted:
        """Sends the dead letter's event through its shard again."""
        return self._caller.send(requests.replay_dead_letter(id))


class Webhooks:
    """Webhook endpoints (`/v1/webhook-endpoints`), their signing secrets, messages and delivery attempts."""

    def __init__(self, caller: _Caller) -> None:
        self._caller = caller

    def create(self, body: CreateWebhookEndpointBody) -> WebhookEndpointCreated:
        """The answer carries the endpoint's signing secret (also at `secret(id)`)."""
        return self._caller.send(requests.create_webhook(body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[WebhookEndpoint, WebhookEndpointList]:
        return Paged(self._caller, requests.list_webhooks(limit, cursor))

    def get(self, id: str) -> WebhookEndpoint:
        return self._caller.send(requests.get_webhook(id))

    def update(self, id: str, body: PatchWebhookEndpointBody) -> WebhookEndpoint:
        """`PATCH`: changes only the fields given."""
        return self._caller.send(requests.update_webhook(id, body))

    def delete(self, id: str) -> None:
        self._caller.send(requests.delete_webhook(id))

    def secret(self, id: str) -> WebhookSecret:
        return self._caller.send(requests.webhook_secret(id))

    def rotate_secret(self, id: str) -> WebhookSecretRotated:
        """A new secret; the previous one keeps signing until `previous_secret_expires_at`."""
        return self._caller.send(requests.rotate_webhook_secret(id))

    def messages(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Paged[WebhookMessage, WebhookMessageList]:
        return Paged(self._caller, requests.webhook_messages(id, limit, cursor))

    def attempts(self, id: str, message_id: str) -> WebhookAttemptList:
        return self._caller.send(requests.webhook_attempts(id, message_id))

    def resend(self, id: str, message_id: str) -> WebhookResent:
        """Delivers the message again."""
        return self._caller.send(requests.resend_webhook_message(id, message_id))


class Routes:
    def __init__(self, http: httpx.Client, options: Options) -> None:
        self._http = http
        caller = _Caller(http, options)
        self.tasks = Records(caller, requests.TASKS)
        self.outcomes = Outcomes(caller)
        self.events = Events(caller)
        self.agents = Records(caller, requests.AGENTS)
        self.customers = Records(caller, requests.CUSTOMERS)
        self.rate_cards = Records(caller, requests.RATE_CARDS)
        self.charges = Charges(caller)
        self.usage = UsageRoutes(caller)
        self.dlq = DeadLetters(caller)
        self.webhooks = Webhooks(caller)
