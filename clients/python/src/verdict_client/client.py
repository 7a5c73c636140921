"""`VerdictClient`: the sync client. `track` hands events to a background thread that runs the delivery
loop; the typed calls are plain blocking requests."""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import threading
import weakref
from typing import Any, List, Optional, Tuple, Type

import httpx

from ._errors import VerdictError
from ._future import TrackFuture, new_condition
from ._options import OnError, Options, Retry, resolve_options
from ._queue import Pending
from ._routes import Routes
from ._sender import Sender
from ._stats import ClientStats
from ._trace import active_traceparent
from .types import VerdictEvent

logger = logging.getLogger("verdict_client")

#: Seconds the loop waits after a `track` wakes it before it admits what has arrived.
DRAIN_DELAY = 0.002

_Inbox = List[Tuple[Any, "concurrent.futures.Future[None]", Optional[str]]]


class VerdictClient(Routes):
    """Tracks events with batching, idempotency keys, ordered retries and backpressure; typed calls for
    every route. Use it as a context manager, or call `close()`: buffered events are flushed at interpreter
    exit too (for at most `timeout` seconds, so an unreachable service cannot hang the exit)."""

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
        super().__init__(httpx.Client(base_url=self._options.base_url, timeout=timeout), self._options)
        self._room = threading.Condition(threading.Lock())
        #: The condition every future `track` returns shares.
        self._futures = new_condition()
        #: Events tracked and not yet settled (the inbox's, the sender's).
        self._held = 0
        #: Events settled in the loop whose room `_release_room` has not yet given back (loop thread only).
        self._unreleased = 0
        #: Threads blocked in `track` waiting for room.
        self._waiting = 0
        self._inbox: _Inbox = []
        self._wake_pending = False
        self._closed = False
        self._stopped = False
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(self._loop_failed)
        self._fault: Optional[BaseException] = None
        limits = httpx.Limits(max_connections=self._options.max_in_flight, max_keepalive_connections=self._options.max_in_flight)
        self._async_http = httpx.AsyncClient(base_url=self._options.base_url, timeout=timeout, limits=limits)
        self._sender = Sender(self._options, self._async_http, self._loop, self._settled)
        self._thread = threading.Thread(target=self._run, name="verdict-client", daemon=True)
        self._thread.start()
        atexit.register(_close_at_exit, weakref.ref(self))

    def __enter__(self) -> "VerdictClient":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], traceback: Any) -> None:
        self.close()

    def track(self, event: VerdictEvent) -> "concurrent.futures.Future[None]":
        """Queues the event for delivery and returns a future that resolves once the service accepted it (202,
        not in `failed`) and raises `VerdictError` when it refused it or retries ran out. Blocks while
        `max_buffered_events` events are held (backpressure)."""
        self._raise_fault()
        future: concurrent.futures.Future[None] = TrackFuture(self._futures)
        traceparent = active_traceparent()
        with self._room:
            while not self._closed and self._held >= self._options.max_buffered_events:
                self._waiting += 1
                try:
                    self._room.wait()
                finally:
                    self._waiting -= 1
            if self._closed:
                future.set_exception(VerdictError(0, "CLIENT_CLOSED", "the client is closed: track() after close()"))
                return future
            self._held += 1
            self._inbox.append((event, future, traceparent))
            wake = not self._wake_pending
            self._wake_pending = True
        if wake:
            self._loop.call_soon_threadsafe(self._drain_soon)
        return future

    def flush(self, timeout: Optional[float] = None) -> None:
        """Returns once every event tracked before the call has settled (accepted or rejected), retries
        included; raises TimeoutError after `timeout` seconds."""
        self._raise_fault()
        if self._stopped:
            return
        asyncio.run_coroutine_threadsafe(self._flush_in_loop(), self._loop).result(timeout)

    def stats(self) -> ClientStats:
        """A snapshot of the backlog and of delivery so far (its counters are the delivery thread's, read as they are)."""
        sender = self._sender
        with self._room:
            buffered, waiting = self._held, self._waiting
        return ClientStats(buffered, waiting, sender.in_flight, sender.accepted, sender.rejected, sender.retried)

    def close(self, timeout: Optional[float] = None) -> None:
        """Refuses new events (`CLIENT_CLOSED`), flushes, and stops the background thread."""
        with self._room:
            self._closed = True
            self._room.notify_all()
        if self._stopped:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._flush_in_loop(), self._loop).result(timeout)
        finally:
            self._stopped = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)
            self._http.close()

    # The background thread.

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        except BaseException as error:  # never dies silently
            logger.error("verdict_client: the background thread failed", exc_info=error)
            self._fault = error
        finally:
            # Sends still pending after a close that timed out end here, not on a closed connection pool.
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.run_until_complete(self._async_http.aclose())
            self._loop.close()

    def _drain_soon(self) -> None:
        # A moment's delay gathers a burst of `track` calls into one wake-up: waking the loop per event (a
        # write to its self-pipe and a turn of the loop each) cost more than the rest of the event's way.
        self._loop.call_later(min(DRAIN_DELAY, self._options.flush_interval), self._drain)

    def _drain(self) -> None:
        with self._room:
            inbox, self._inbox = self._inbox, []
            self._wake_pending = False
        for event, future, traceparent in inbox:
            try:
                self._sender.admit(event, future, traceparent)
            except Exception as error:  # never dies silently: this event fails, the next call raises
                logger.error("verdict_client: admitting an event failed", exc_info=error)
                self._fault = error
                self._settled(None, VerdictError(0, "CLIENT_FAILED", f"admitting the event failed: {error!r}"), future)

    async def _flush_in_loop(self) -> None:
        self._drain()
        await self._sender.flush()

    def _settled(self, event: Optional[Pending], error: Optional[VerdictError], future: Any = None) -> None:
        target: concurrent.futures.Future[None] = future if event is None else event.future
        if not target.done():
            if error is None:
                target.set_result(None)
            else:
                target.set_exception(error)
        # The room is given back once per loop turn, not per event: a batch settles hundreds at once, and a
        # lock and a notify each cost more than the rest of settling one.
        self._unreleased += 1
        if self._unreleased == 1:
            self._loop.call_soon(self._release_room)

    def _release_room(self) -> None:
        count, self._unreleased = self._unreleased, 0
        with self._room:
            self._held -= count
            if self._held < self._options.max_buffered_events:
                self._room.notify(count)

    def _loop_failed(self, loop: asyncio.AbstractEventLoop, context: Any) -> None:
        error = context.get("exception")
        logger.error("verdict_client: background delivery failed: %s", context.get("message"), exc_info=error)
        self._fault = error if isinstance(error, BaseException) else RuntimeError(str(context.get("message")))

    def _raise_fault(self) -> None:
        fault = self._fault or self._sender.fault
        if fault is None and not self._stopped and not self._thread.is_alive():
            fault = RuntimeError("the background thread is not running")
        if fault is None:
            return
        self._fault = None
        self._sender.fault = None
        raise VerdictError(0, "CLIENT_FAILED", f"the client's background delivery failed: {fault!r}") from fault


def _close_at_exit(ref: "weakref.ReferenceType[VerdictClient]") -> None:
    client = ref()
    if client is None or client._stopped:
        return
    try:
        client.close(client._options.timeout)
    except Exception as error:  # the exit goes on; what was not delivered is logged
        logger.warning("verdict_client: events not delivered at exit: %r", error)
