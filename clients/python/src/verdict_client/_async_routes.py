"""Typed calls for every route, as coroutines: each returns the answer's body or raises VerdictError. One attempt
each: retries with ordering and idempotency are what `track` is for. A `list` returns an `AsyncPaged`: awaited
(or `.page()`) it is one page (the body, with `next_cursor`); `async for` yields every item of every page."""
from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable, Generator, Generic, List, Optional, TypeVar, cast

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


class AsyncPaged(Generic[Item, Page]):
    def __init__(self, fetch: Callable[[Optional[str]], Awaitable[Page]], field: str) -> None:
        self._fetch = fetch
        self._field = field

    async def page(self) -> Page:
        """The first page (or the page at the query's `cursor`)."""
        return await self._fetch(None)

    def __await__(self) -> Generator[Any, None, Page]:
        return self.page().__await__()

    async def pages(self) -> AsyncIterator[Page]:
        """Every page in turn, each fetched when the previous one is used up."""
        cursor: Optional[str] = None
        while True:
            body = await self._fetch(cursor)
            yield body
            cursor = cast(Any, body)["next_cursor"]
            if cursor is None:
                return

    async def __aiter__(self) -> AsyncIterator[Item]:
        async for body in self.pages():
            for item in cast(List[Item], cast(Any, body)[self._field]):
                yield item


class _AsyncCaller:
    def __init__(self, http: httpx.AsyncClient, options: Options) -> None:
        self._http = http
        self._options = options

    async def call(self, method: str, path: str, query: Optional[Query] = None, body: Any = _NO_BODY) -> Any:
        has_body = body is not _NO_BODY
        headers = headers_for(self._options.token, has_body, ACTIVE)
        content = body_text(body).encode() if has_body else None
        try:
            response = await self._http.request(method, path, params=params_of(query), content=content, headers=headers)
        except httpx.HTTPError as error:
            raise transport_error(error, self._options.timeout, method, path) from error
        return read_answer(method, path, response)

    def paged(self, path: str, field: str, query: Query) -> Any:
        async def fetch(cursor: Optional[str]) -> Any:
            return await self.call("GET", path, query if cursor is None else {**query, "cursor": cursor})

        return AsyncPaged(fetch, field)


class AsyncRecords(Generic[Item, Body, Page]):
    """PUT (create or replace; the stored record comes back), GET one, GET a list, DELETE."""

    def __init__(self, caller: _AsyncCaller, segment: str, field: str) -> None:
        self._caller = caller
        self._segment = segment
        self._field = field

    async def put(self, key: str, body: Body) -> Item:
        return cast(Item, await self._caller.call("PUT", f"/v1/{self._segment}/{segment(key)}", body=body))

    async def get(self, key: str) -> Item:
        return cast(Item, await self._caller.call("GET", f"/v1/{self._segment}/{segment(key)}"))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[Item, Page]:
        return cast(AsyncPaged[Item, Page], self._caller.paged(f"/v1/{self._segment}", self._field, {"limit": limit, "cursor": cursor}))

    async def delete(self, key: str) -> None:
        await self._caller.call("DELETE", f"/v1/{self._segment}/{segment(key)}")


class AsyncOutcomes:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def open(self, body: OpenOutcomeBody) -> Outcome:
        """Opens a Variant A outcome from a task (the same key and task again answers the existing one)."""
        return cast(Outcome, await self._caller.call("POST", "/v1/outcomes", body=body))

    async def get(self, key: str) -> Outcome:
        return cast(Outcome, await self._caller.call("GET", f"/v1/outcomes/{segment(key)}"))

    def list(
        self,
        *,
        status: Optional[OutcomeStatus] = None,
        task_key: Optional[str] = None,
        agent_key: Optional[str] = None,
        customer_key: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> AsyncPaged[Outcome, OutcomeList]:
        query = {"status": status, "task_key": task_key, "agent_key": agent_key, "customer_key": customer_key, "limit": limit, "cursor": cursor}
        return cast(AsyncPaged[Outcome, OutcomeList], self._caller.paged("/v1/outcomes", "outcomes", query))

    def events(self, key: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[LoggedEvent, OutcomeEventList]:
        """The outcome's event log, oldest first."""
        query = {"limit": limit, "cursor": cursor}
        return cast(AsyncPaged[LoggedEvent, OutcomeEventList], self._caller.paged(f"/v1/outcomes/{segment(key)}/events", "events", query))


class AsyncEvents:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def send(self, event: VerdictEvent) -> EventAccepted:
        """One event, one attempt (`POST /v1/events`); a 503 raises."""
        return cast(EventAccepted, await self._caller.call("POST", "/v1/events", body=event))

    async def batch(self, events: List[VerdictEvent]) -> BatchAccepted:
        """Up to 500 events, one attempt; read `failed` yourself, or use `track`, which does."""
        return cast(BatchAccepted, await self._caller.call("POST", "/v1/events/batch", body={"events": events}))


class AsyncCharges:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    def list(
        self, *, customer_key: Optional[str] = None, from_: Optional[str] = None, to: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> AsyncPaged[Charge, ChargeList]:
        """`from_` and `to` are ISO 8601: charges confirmed at or after `from_`, and before `to`."""
        query = {"customer_key": customer_key, "from": from_, "to": to, "limit": limit, "cursor": cursor}
        return cast(AsyncPaged[Charge, ChargeList], self._caller.paged("/v1/charges", "charges", query))


class AsyncUsageRoutes:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def get(self, *, customer_key: Optional[str] = None) -> Usage:
        return cast(Usage, await self._caller.call("GET", "/v1/usage", {"customer_key": customer_key}))


class AsyncDeadLetters:
    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    def list(self, *, code: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[DeadLetter, DeadLetterList]:
        query = {"code": code, "limit": limit, "cursor": cursor}
        return cast(AsyncPaged[DeadLetter, DeadLetterList], self._caller.paged("/v1/dlq", "dead_letters", query))

    async def replay(self, id: str) -> ReplayAccepted:
        """Sends the dead letter's event through its shard again."""
        return cast(ReplayAccepted, await self._caller.call("POST", f"/v1/dlq/{segment(id)}/replay"))


class AsyncWebhooks:
    """Webhook endpoints (`/v1/webhook-endpoints`), their signing secrets, messages and delivery attempts."""

    def __init__(self, caller: _AsyncCaller) -> None:
        self._caller = caller

    async def create(self, body: CreateWebhookEndpointBody) -> WebhookEndpointCreated:
        """The answer carries the endpoint's signing secret (also at `secret(id)`)."""
        return cast(WebhookEndpointCreated, await self._caller.call("POST", "/v1/webhook-endpoints", body=body))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[WebhookEndpoint, WebhookEndpointList]:
        query = {"limit": limit, "cursor": cursor}
        return cast(AsyncPaged[WebhookEndpoint, WebhookEndpointList], self._caller.paged("/v1/webhook-endpoints", "webhook_endpoints", query))

    async def get(self, id: str) -> WebhookEndpoint:
        return cast(WebhookEndpoint, await self._caller.call("GET", f"/v1/webhook-endpoints/{segment(id)}"))

    async def update(self, id: str, body: PatchWebhookEndpointBody) -> WebhookEndpoint:
        """`PATCH`: changes only the fields given."""
        return cast(WebhookEndpoint, await self._caller.call("PATCH", f"/v1/webhook-endpoints/{segment(id)}", body=body))

    async def delete(self, id: str) -> None:
        await self._caller.call("DELETE", f"/v1/webhook-endpoints/{segment(id)}")

    async def secret(self, id: str) -> WebhookSecret:
        return cast(WebhookSecret, await self._caller.call("GET", f"/v1/webhook-endpoints/{segment(id)}/secret"))

    async def rotate_secret(self, id: str) -> WebhookSecretRotated:
        """A new secret; the previous one keeps signing until `previous_secret_expires_at`."""
        return cast(WebhookSecretRotated, await self._caller.call("POST", f"/v1/webhook-endpoints/{segment(id)}/rotate-secret"))

    def messages(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AsyncPaged[WebhookMessage, WebhookMessageList]:
        query = {"limit": limit, "cursor": cursor}
        return cast(AsyncPaged[WebhookMessage, WebhookMessageList], self._caller.paged(f"/v1/webhook-endpoints/{segment(id)}/messages", "messages", query))

    async def attempts(self, id: str, message_id: str) -> WebhookAttemptList:
        return cast(WebhookAttemptList, await self._caller.call("GET", f"/v1/webhook-endpoints/{segment(id)}/messages/{segment(message_id)}/attempts"))

    async def resend(self, id: str, message_id: str) -> WebhookResent:
        """Delivers the message again."""
        return cast(WebhookResent, await self._caller.call("POST", f"/v1/webhook-endpoints/{segment(id)}/messages/{segment(message_id)}/resend"))


class AsyncRoutes:
    def __init__(self, http: httpx.AsyncClient, options: Options) -> None:
        self._http = http
        caller = _AsyncCaller(http, options)
        self.tasks: AsyncRecords[Task, PutTaskBody, TaskList] = AsyncRecords(caller, "tasks", "tasks")
        self.outcomes = AsyncOutcomes(caller)
        self.events = AsyncEvents(caller)
        self.agents: AsyncRecords[Agent, PutAgentBody, AgentList] = AsyncRecords(caller, "agents", "agents")
        self.customers: AsyncRecords[Customer, PutCustomerBody, CustomerList] = AsyncRecords(caller, "customers", "customers")
        self.rate_cards: AsyncRecords[RateCard, PutRateCardBody, RateCardList] = AsyncRecords(caller, "rate-cards", "rate_cards")
        self.charges = AsyncCharges(caller)
        self.usage = AsyncUsageRoutes(caller)
        self.dlq = AsyncDeadLetters(caller)
        self.webhooks = AsyncWebhooks(caller)
