"""Typed calls for every route, as coroutines: each returns the answer's body or raises VerdictError. One attempt
each: retries with ordering and idempotency are what `track` is for. A `list` returns an `AsyncPaged`: awaited
(or `.page()`) it is one page (the body, with `next_cursor`); `async for` yields every item of every page. What
each call asks of the service is in `_requests.py`, shared with the blocking calls."""
from __future__ import annotations

from typing import Any, AsyncIterator, Generator, Generic, List, Optional, TypeVar, cast

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


class _AsyncCaller:
    def __init__(self, http: httpx.AsyncClient, options: Options) -> None:
        self._http = http
        self._options = options

    async def send(self, request: Request[Answer]) -> Answer:
        method, path, body = request.method, request.path, request.body
        has_body = body is not NO_BODY
        headers = headers_for(self._options.token, has_body, ACTIVE)
        content = body_text(body).encode() if has_body else None
        try:
            response = await self._http.request(method, path, params=params_of(request.query), content=content, headers=headers)
        except httpx.HTTPError as error:
            raise transport_error(error, self._options.timeout, method, path) from error
        return cast(Answer, read_answer(method, path, response))


class AsyncPaged(Generic[Item, Page]):
    def __init__(self, caller: _AsyncCaller, request: ListRequest[Item, Page]) -> None:
        self._caller = caller
        self._request = request

    async def page(self) -> Page:
        """The first page (or the page at the query's `cursor`)."""
        return await self._caller.send(self._request)

    def __await__(self) -> Generator[Any, None, Page]:
        return self.page().__await__()

    async def pages(self) -> AsyncIterator[Page]:
        """Every page in turn, each fetched when the previous one is used up."""
        request = self._request
        while True:
            body = await self._caller.send(request)
            yield body
            cursor = cast(Any, body)["next_cursor"]
            if cursor is None:
                return
            request = request.at(cursor)

    async def __aiter__(self) -> AsyncIterator[Item]:
        async for body in self.pages():
            for item in cast(List[Item], cast(Any, body)[self._request.items]):
                yield item


class AsyncRecords(Generic[Item, Body, Page]):
    """PUT (create or replace; the stored record comes back), GET one, GET a list, DELETE."""

    def __init__(self, caller: _AsyncCaller, requests: RecordRequests[Item, Body, Page]) -> None:
        self._caller = caller
        self._requests = requests

    async def put(self, key: str, body: Body) -> Item:
        return await self._caller.send(self._requests.put(key, body))

    async def get(self, key: str) -> Item:
        return await self._caller.send(self._requests.get(key))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[Item, Page]:
        return AsyncPaged(self._caller, self._requests.list(limit, cursor))

    async def delete(self, key: str) -> None:
        await self._caller.send(self._requests.delete(key))


class AsyncOutcomes:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def open(self, body: OpenOutcomeBody) -> Outcome:
        """Opens a Variant A outcome from a task (the same key and task again answers the existing one)."""
        return await self._caller.send(requests.open_outcome(body))

    async def get(self, key: str) -> Outcome:
        return await self._caller.send(requests.get_outcome(key))

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
    ) -> AsyncPaged[Outcome, OutcomeList]:
        query = {"status": status, "task_key": task_key, "agent_key": agent_key, "customer_key": customer_key, "failed_clause": failed_clause, "limit": limit, "cursor": cursor}
        return AsyncPaged(self._caller, requests.list_outcomes(query))

    def events(self, key: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[LoggedEvent, OutcomeEventList]:
        """The outcome's event log, oldest first."""
        return AsyncPaged(self._caller, requests.outcome_events(key, limit, cursor))


class AsyncEvents:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def send(self, event: VerdictEvent) -> EventAccepted:
        """One event, one attempt (`POST /v1/events`); a 503 raises."""
        return await self._caller.send(requests.send_event(event))

    async def batch(self, events: List[VerdictEvent]) -> BatchAccepted:
        """Up to 500 events, one attempt; read `failed` yourself, or use `track`, which does."""
        return await self._caller.send(requests.send_batch(events))


class AsyncCharges:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    def list(
        self, *, customer_key: Optional[str] = None, from_: Optional[str] = None, to: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> AsyncPaged[Charge, ChargeList]:
        """`from_` and `to` are ISO 8601: charges confirmed at or after `from_`, and before `to`."""
        query = {"customer_key": customer_key, "from": from_, "to": to, "limit": limit, "cursor": cursor}
        return AsyncPaged(self._caller, requests.list_charges(query))


class AsyncUsageRoutes:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def get(self, *, customer_key: Optional[str] = None) -> Usage:
        return await self._caller.send(requests.get_usage(customer_key))


class AsyncDeadLetters:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    def list(self, *, code: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[DeadLetter, DeadLetterList]:
        return AsyncPaged(self._caller, requests.list_dead_letters({"code": code, "limit": limit, "cursor": cursor}))

    async def replay(self, id: str) -> ReplayAccepted:
        """Sends the dead letter's event through its shard again."""
        return await self._caller.send(requests.replay_dead_letter(id))


class AsyncWebhooks:
    """Webhook endpoints (`/v1/webhook-endpoints`), their signing secrets, messages and delivery attempts."""

    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def create(self, body: CreateWebhookEndpointBody) -> WebhookEndpointCreated:
        """The answer carries the endpoint's signing secret (also at `secret(id)`)."""
        return await self._caller.send(requests.create_webhook(body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[WebhookEndpoint, WebhookEndpointList]:
        return AsyncPaged(self._caller, requests.list_webhooks(limit, cursor))

    async def get(self, id: str) -> WebhookEndpoint:
        return await self._caller.send(requests.get_webhook(id))

    async def update(self, id: str, body: PatchWebhookEndpointBody) -> WebhookEndpoint:
        """`PATCH`: changes only the fields given."""
        return await self._caller.send(requests.update_webhook(id, body))

    async def delete(self, id: str) -> None:
        await self._caller.send(requests.delete_webhook(id))

    async def secret(self, id: str) -> WebhookSecret:
        return await self._caller.send(requests.webhook_secret(id))

    async def rotate_secret(self, id: str) -> WebhookSecretRotated:
        """A new secret; the previous one keeps signing until `previous_secret_expires_at`."""
        return await self._caller.send(requests.rotate_webhook_secret(id))

    def messages(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[WebhookMessage, WebhookMessageList]:
        return AsyncPaged(self._caller, requests.webhook_messages(id, limit, cursor))

    async def attempts(self, id: str, message_id: str) -> WebhookAttemptList:
        return await self._caller.send(requests.webhook_attempts(id, message_id))

    async def resend(self, id: str, message_id: str) -> WebhookResent:
        """Delivers the message again."""
        return await self._caller.send(requests.resend_webhook_message(id, message_id))


class AsyncRoutes:
    def __init__(self, http: httpx.AsyncClient, options: Options) -> None:
        self._http = http
        caller = _AsyncCaller(http, options)
        self.tasks = AsyncRecords(caller, requests.TASKS)
        self.outcomes = AsyncOutcomes(caller)
        self.events = AsyncEvents(caller)
        self.agents = AsyncRecords(caller, requests.AGENTS)
        self.customers = AsyncRecords(caller, requests.CUSTOMERS)
        self.rate_cards = AsyncRecords(caller, requests.RATE_CARDS)
        self.charges = AsyncCharges(caller)
        self.usage = AsyncUsageRoutes(caller)
        self.dlq = AsyncDeadLetters(caller)
        self.webhooks = AsyncWebhooks(caller)
