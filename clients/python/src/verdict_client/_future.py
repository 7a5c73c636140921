"""The future the sync `track` returns: a `concurrent.futures.Future` that shares its client's condition.

A stock Future builds a `threading.Condition` (and its lock) in its constructor, which cost more than the
rest of tracking an event. These futures share one condition per client, so creating one is a few attribute
writes; `result` and `exception` wait in a loop, since a notify may be another future's. Everything else,
`concurrent.futures.wait` and `as_completed` included, is the stock Future's.
"""
from __future__ import annotations

import concurrent.futures
import threading
import time
from concurrent.futures._base import PENDING, RUNNING
from typing import Any, List, Optional


class TrackFuture(concurrent.futures.Future[None]):
    def __init__(self, condition: threading.Condition) -> None:  # the stock constructor would build a Condition
        self._condition = condition
        self._state = PENDING
        self._result = None
        self._exception: Optional[BaseException] = None
        self._waiters: List[Any] = []
        self._done_callbacks: List[Any] = []

    def result(self, timeout: Optional[float] = None) -> None:
        self._wait(timeout)
        super().result(0)

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
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


def new_condition() -> threading.Condition:
    # Reentrant, as the stock Future's: concurrent.futures.wait takes every future's condition in turn.
    return threading.Condition(threading.RLock())
