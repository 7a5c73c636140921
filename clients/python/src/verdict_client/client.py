"""`VerdictClient`: the sync client. `track` hands events to a background thread that runs the delivery
loop; the typed calls are plain blocking requests."""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import itertools
import logging
import os
import threading
import weakref
from collections import deque
from typing import Any, Deque, List, Optional, Tuple, Type

import httpx

from ._errors import VerdictError
from ._future import TrackFuture, new_condition, settle
from ._options import OnError, Options, Retry, resolve_options
from ._posting import ThreadPoster
from ._queue import Pending
from ._routes import Routes
from ._sender import Sender
from ._stats import ClientStats
from ._trace import active_traceparent
from .types import VerdictEvent

logger = logging.getLogger("verdict_client")

#: Seconds the loop waits after a `track` wakes it before it admits what has arrived.
DRAIN_DELAY = 0.002

_Inbox = Deque[Tuple[Any, TrackFuture, Optional[str]]]


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
        # `track` takes no lock while there is room: a lock the delivery thread also takes was, under the GIL,
        # the costliest part of tracking an event. Its inbox is a deque (append and popleft are atomic), each
        # call takes a number from `_numbers` (also atomic), and the room it needs is counted from that
        # number: event n may enter while fewer than `max_buffered_events` of those numbered before it are
        # unsettled, i.e. n - `_released` < max_buffered_events.
        self._numbers = itertools.count()
        #: Events whose room was given back (settled, or refused at close); written under `_lock` only.
        self._released = 0
        self._lock = threading.Lock()
        #: Where `track` waits for room (slow path only).
        self._room = threading.Condition(self._lock)
        #: The condition every future `track` returns shares.
        self._futures = new_condition()
        #: Threads blocked in `track` waiting for room.
        self._waiting = 0
        self._inbox: _Inbox = deque()
        self._wake_pending = False
        self._closed = False
        #: Set once the last flush of `close` is done: what reaches the inbox after it is refused, not queued.
        self._sealed = False
        self._stopped = False
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(self._loop_failed)
        self._fault: Optional[BaseException] = None
        limits = httpx.Limits(max_connections=self._options.max_in_flight, max_keepalive_connections=self._options.max_in_flight)
        batch_http = httpx.Client(base_url=self._options.base_url, timeout=timeout, limits=limits)
        self._poster = ThreadPoster(batch_http, self._loop, self._options.max_in_flight)
        self._sender = Sender(self._options, self._poster, self._loop, self._settled)
        self._thread = threading.Thread(target=self._run, name="verdict-client", daemon=True)
        self._thread.start()
        atexit.register(_close_at_exit, weakref.ref(self))
        _live_clients.add(self)

    def __enter__(self) -> "VerdictClient":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], traceback: Any) -> None:
        self.close()

    def track(self, event: VerdictEvent) -> "concurrent.futures.Future[None]":
        """Queues the event for delivery and returns a future that resolves once the service accepted it (202,
        not in `failed`) and raises `VerdictError` when it refused it or retries ran out. Blocks while
        `max_buffered_events` events are held (backpressure)."""
        if self._fault is not None or self._sender.fault is not None:
            self._raise_fault()
        future = TrackFuture(self._futures)
        traceparent = active_traceparent()
        number = next(self._numbers)
        if (self._closed or number - self._released >= self._options.max_buffered_events) and not self._room_for(number):
            future.set_exception(_closed_error())
            return future
        self._inbox.append((event, future, traceparent))
        if self._sealed:
            self._refuse_inbox()  # close() has sent its last batch: nothing would send this one
        elif not self._wake_pending:
            # The drain clears the flag before it empties the inbox, so an event appended before the flag was
            # seen set is in the inbox that drain empties.
            self._wake_pending = True
            self._loop.call_soon_threadsafe(self._drain_soon)
        return future

    def _room_for(self, number: int) -> bool:
        """Waits until event `number` has room (True) or the client is closed (False, its room given back)."""
        with self._lock:
            self._waiting += 1
            try:
                while not self._closed and number - self._released >= self._options.max_buffered_events:
                    self._room.wait()
            finally:
                self._waiting -= 1
            if self._closed:
                self._released += 1
                return False
            return True

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
        buffered = len(self._inbox) + sender.buffered
        return ClientStats(buffered, self._waiting, sender.in_flight, sender.accepted, sender.rejected, sender.retried)

    def close(self, timeout: Optional[float] = None) -> None:
        """Refuses new events (`CLIENT_CLOSED`), flushes, and stops the background thread."""
        with self._lock:
            self._closed = True
            self._room.notify_all()
        if self._stopped:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._close_in_loop(), self._loop).result(timeout)
        finally:
            self._stopped = True
            self._sealed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)
            self._refuse_inbox()  # after a close that timed out
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
            self._loop.close()
            self._poster.close(self._options.timeout)

    def _drain_soon(self) -> None:
        # A moment's delay gathers a burst of `track` calls into one wake-up: waking the loop per event (a
        # write to its self-pipe and a turn of the loop each) cost more than the rest of the event's way.
        self._loop.call_later(min(DRAIN_DELAY, self._options.flush_interval), self._drain)

    def _drain(self) -> None:
        self._wake_pending = False
        if self._sealed:
            self._refuse_inbox()
            return
        inbox, admit = self._inbox, self._sender.admit
        while True:
            try:
                event, future, traceparent = inbox.popleft()
            except IndexError:  # empty (a close that timed out may be refusing what is left)
                break
            try:
                admit(event, future, traceparent)
            except Exception as error:  # never dies silently: this event fails, the next call raises
                logger.error("verdict_client: admitting an event failed", exc_info=error)
                self._fault = error
                settle(self._futures, [(future, VerdictError(0, "CLIENT_FAILED", f"admitting the event failed: {error!r}"))])
                self._release_room(1)
        self._sender.admitted()

    async def _flush_in_loop(self) -> None:
        self._drain()
        await self._sender.flush()

    async def _close_in_loop(self) -> None:
        # A `track` that saw the client open may still add an event while the flush runs: flush again until
        # nothing is left, then seal (on this thread, so no drain comes between the last check and the seal).
        while True:
            await self._flush_in_loop()
            if not self._inbox and self._sender.buffered == 0:
                break
        self._sealed = True
        self._refuse_inbox()

    def _refuse_inbox(self) -> None:
        """Refuses what is in the inbox once the client is sealed (any thread: popleft hands each out once)."""
        refused: List[Tuple[TrackFuture, Optional[BaseException]]] = []
        while True:
            try:
                _, future, _ = self._inbox.popleft()
            except IndexError:
                break
            refused.append((future, _closed_error()))
        if refused:
            settle(self._futures, refused)

    def _settled(self, done: List[Pending]) -> None:
        # A batch's futures complete under one hold of their condition and its room comes back under one hold
        # of the lock: per event, a lock and a notify each cost more than the rest of settling it.
        settle(self._futures, [(event.future, event.error) for event in done])
        self._release_room(len(done))

    def _release_room(self, count: int) -> None:
        with self._lock:
            self._released += count
            if self._waiting:
                self._room.notify_all()  # each waiter has its own number: each checks its own room

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


def _closed_error() -> VerdictError:
    return VerdictError(0, "CLIENT_CLOSED", "the client is closed: track() after close()")


#: Every sync client not yet collected: a forked child marks its copies failed (`_forked`).
_live_clients: "weakref.WeakSet[VerdictClient]" = weakref.WeakSet()


def _forked() -> None:
    # A child of fork() has no copy of the parent's threads: its clients' next call raises, and they are closed
    # there rather than queueing events nothing will send. Their locks are new, since one may have been held
    # by a thread the child does not have.
    for client in list(_live_clients):
        if not client._stopped:
            client._fault = RuntimeError("the background thread is not running (the process forked)")
            client._lock = threading.Lock()
            client._room = threading.Condition(client._lock)
            client._futures = new_condition()
            client._closed = client._sealed = client._stopped = True


os.register_at_fork(after_in_child=_forked)


def _close_at_exit(ref: "weakref.ReferenceType[VerdictClient]") -> None:
    client = ref()
    if client is None or client._stopped:
        return
    try:
        client.close(client._options.timeout)
    except Exception as error:  # the exit goes on; what was not delivered is logged
        logger.warning("verdict_client: events not delivered at exit: %r", error)
