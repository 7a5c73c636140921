"""`AsyncVerdictClient`: the asyncio client. Delivery runs as tasks in the caller's loop; the typed calls are
coroutines."""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any, Deque, List, Optional, Type

import httpx

from ._async_routes import AsyncRoutes
from ._errors import VerdictError
from ._options import OnError, Options, Retry, resolve_options
from ._posting import async_poster
from ._queue import Pending
from ._sender import Sender
from ._stats import ClientStats
from ._trace import active_traceparent
from .types import VerdictEvent

logger = logging.getLogger("verdict_client")


class AsyncVerdictClient(AsyncRoutes):
    """The sync client's surface in asyncio: `await track(event)` returns once the service accepted the event,
    and waits for room first while `max_buffered_events` events are held (backpressure)."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        max_batch_size: int = 500,
        flush_interval: float = 0.02,
        max_buffered_events: int = 100_000,
        max_in_flight: int = 8,
        timeout: float = 10.0,
        retry: Retry = Retry(),
        idempotency: str = "auto",
        on_error: Optional[OnError] = None,
    ) -> None:
        self._options: Options = resolve_options(
            base_url,
            token,
            max_batch_size=max_batch_size,
            flush_interval=flush_interval,
            max_buffered_events=max_buffered_events,
            max_in_flight=max_in_flight,
            timeout=timeout,
            retry=retry,
            idempotency=idempotency,
            on_error=on_error,
        )
        super().__init__(httpx.AsyncClient(base_url=self._options.base_url, timeout=timeout), self._options)
        self._sender: Optional[Sender] = None
        #: The batch requests' connections, made with the sender in the first `track`'s loop.
        self._batch_http: Optional[httpx.AsyncClient] = None
        #: Events tracked and not yet settled, and the `track` calls waiting for room, in call order.
        self._held = 0
        self._room_waiters: Deque["asyncio.Future[None]"] = deque()
        self._closed = False

    async def __aenter__(self) -> "AsyncVerdictClient":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], traceback: Any) -> None:
        await self.close()

    async def track(self, event: VerdictEvent) -> None:
        """Returns once the service accepted the event (202, not in `failed`); raises `VerdictError` when it
        refused it or retries ran out. Calls made in order (or tasks created in order) are admitted in order."""
        self._raise_fault()
        if self._closed:
            raise VerdictError(0, "CLIENT_CLOSED", "the client is closed: track() after close()")
        sender = self._sender_here()
        traceparent = active_traceparent()
        if self._room_waiters or self._held >= self._options.max_buffered_events:
            await self._wait_for_room()
            if self._closed:
                self._release()
                raise VerdictError(0, "CLIENT_CLOSED", "the client is closed: track() after close()")
        else:
            self._held += 1
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        sender.admit(event, future, traceparent)
        sender.admitted()
        await future

    async def flush(self) -> None:
        """Returns once every event tracked before the call has settled (accepted or rejected), retries included."""
        self._raise_fault()
        if self._sender is not None:
            await self._sender.flush()

    def stats(self) -> ClientStats:
        """A snapshot of the backlog and of delivery so far."""
        sender = self._sender
        if sender is None:
            return ClientStats(self._held, len(self._room_waiters), 0, 0, 0, 0)
        return ClientStats(self._held, len(self._room_waiters), sender.in_flight, sender.accepted, sender.rejected, sender.retried)

    async def close(self) -> None:
        """Refuses new events (`CLIENT_CLOSED`), flushes, and closes the connections."""
        self._closed = True
        # Waiting `track` calls are let in to refuse themselves.
        while self._room_waiters:
            waiter = self._room_waiters.popleft()
            if not waiter.done():
                self._held += 1
                waiter.set_result(None)
        if self._sender is not None:
            await self._sender.flush()
        if self._batch_http is not None:
            await self._batch_http.aclose()
        await self._http.aclose()

    def _sender_here(self) -> Sender:
        if self._sender is None:
            limits = httpx.Limits(max_connections=self._options.max_in_flight, max_keepalive_connections=self._options.max_in_flight)
            self._batch_http = httpx.AsyncClient(base_url=self._options.base_url, timeout=self._options.timeout, limits=limits)
            self._sender = Sender(self._options, async_poster(self._batch_http), asyncio.get_running_loop(), self._settled)
        return self._sender

    async def _wait_for_room(self) -> None:
        """Queues behind earlier waiters; a waiter is woken with its room already taken, so none overtakes it."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._room_waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()
            else:
                self._room_waiters.remove(waiter)
            raise

    def _settled(self, done: List[Pending]) -> None:
        for event in done:
            future: asyncio.Future[None] = event.future
            if not future.done():
                if event.error is None:
                    future.set_result(None)
                else:
                    future.set_exception(event.error)
        self._release(len(done))

    def _release(self, count: int = 1) -> None:
        self._held -= count
        while self._room_waiters and self._held < self._options.max_buffered_events:
            waiter = self._room_waiters.popleft()
            if not waiter.done():
                self._held += 1
                waiter.set_result(None)

    def _raise_fault(self) -> None:
        fault = self._sender.fault if self._sender is not None else None
        if fault is None:
            return
        assert self._sender is not None
        self._sender.fault = None
        raise VerdictError(0, "CLIENT_FAILED", f"the client's background delivery failed: {fault!r}") from fault
