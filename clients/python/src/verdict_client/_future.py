"""The future the sync `track` returns: a `concurrent.futures.Future` that shares its client's condition.

A stock Future builds a `threading.Condition` (and its lock) in its constructor, takes it on every read and
notifies it on completion, which cost more than the rest of tracking an event. These futures share one
condition per client, so creating one is a few attribute writes; a finished one is read without the lock
(its state never changes again); `settle` completes a batch's futures under one hold of the condition and
one notify; `result` and `exception` wait in a loop, since a notify may be another future's. Everything
else, `concurrent.futures.wait` and `as_completed` included, is the stock Future's.
"""
from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from concurrent.futures._base import FINISHED, PENDING, RUNNING
from typing import Any, Iterable, List, Optional, Tuple

#: The stock Future's logger for a callback that raised.
_logger = logging.getLogger("concurrent.futures")


class TrackFuture(concurrent.futures.Future[None]):
    # The stock fields' starting values are class attributes, and the two lists are made when first asked for
    # (`__getattr__`): most futures are only settled and read, so creating one is a single attribute write.
    _state = PENDING
    _result = None
    _exception: Optional[BaseException] = None

    def __init__(self, condition: threading.Condition) -> None:  # the stock constructor would build a Condition
        self._condition = condition

    def __getattr__(self, name: str) -> Any:
        if name == "_waiters" or name == "_done_callbacks":
            made: List[Any] = []
            setattr(self, name, made)
            return made
        raise AttributeError(name)

    def result(self, timeout: Optional[float] = None) -> None:
        if self._state == FINISHED:
            error = self._exception
            if error is not None:
                raise error
            return None
        self._wait(timeout)
        super().result(0)

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        if self._state == FINISHED:
            return self._exception
        self._wait(timeout)
        return super().exception(0)

    def _wait(self, timeout: Optional[float]) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._condition:
            while self._state == PENDING or self._state == RUNNING:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return  # the stock method, called with 0, raises TimeoutError
                self._condition.wait(remaining)


def settle(condition: threading.Condition, outcomes: Iterable[Tuple[TrackFuture, Optional[BaseException]]]) -> None:
    """Completes the futures (None: accepted) that are still pending; a cancelled one stays cancelled."""
    with_callbacks: List[TrackFuture] = []
    with condition:
        for future, error in outcomes:
            if future._state != PENDING and future._state != RUNNING:
                continue
            future._exception = error
            future._state = FINISHED
            made = future.__dict__
            for waiter in made.get("_waiters", ()):  # concurrent.futures.wait and as_completed
                if error is None:
                    waiter.add_result(future)
                else:
                    waiter.add_exception(future)
            if made.get("_done_callbacks"):
                with_callbacks.append(future)
        condition.notify_all()
    for future in with_callbacks:  # outside the lock, as the stock Future calls them
        for callback in future._done_callbacks:
            try:
                callback(future)
            except Exception:
                _logger.exception("exception calling callback for %r", future)


def new_condition() -> threading.Condition:
    # Reentrant, as the stock Future's: concurrent.futures.wait takes every future's condition in turn.
    return threading.Condition(threading.RLock())
