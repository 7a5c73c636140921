"""How the sender's batch requests travel: `PostBatch` posts a body to `/v1/events/batch` and is awaited on the
sender's loop.

The async client posts through `httpx.AsyncClient` in the caller's loop. The sync client posts through a sync
`httpx.Client` from threads of its own, handing each answer back to its delivery loop: httpx's async stack
(anyio under asyncio) costs about twice the sync one's CPU per request, and the sync client's delivery shares
one interpreter (the GIL) with the application. The threads are daemons, as the delivery thread is: the
exit flush (an `atexit` handler) runs before daemon threads stop, so it can still send.
"""
from __future__ import annotations

import asyncio
import queue
import threading
import time
from typing import Awaitable, Callable, Dict, List, Optional, Tuple

import httpx

BATCH_PATH = "/v1/events/batch"

PostBatch = Callable[[bytes, Dict[str, str]], Awaitable[httpx.Response]]

_Job = Tuple[bytes, Dict[str, str], "asyncio.Future[httpx.Response]"]


def async_poster(http: httpx.AsyncClient) -> PostBatch:
    async def post(content: bytes, headers: Dict[str, str]) -> httpx.Response:
        return await http.post(BATCH_PATH, content=content, headers=headers)

    return post


class ThreadPoster:
    """Posts from up to `max_in_flight` threads, started as requests need them; driven from one loop only."""

    def __init__(self, http: httpx.Client, loop: asyncio.AbstractEventLoop, max_threads: int) -> None:
        self._http = http
        self._loop = loop
        self._max_threads = max_threads
        self._jobs: "queue.SimpleQueue[Optional[_Job]]" = queue.SimpleQueue()
        self._threads: List[threading.Thread] = []
        #: Requests handed to the threads and not yet answered (loop thread only).
        self._busy = 0

    def __call__(self, content: bytes, headers: Dict[str, str]) -> "asyncio.Future[httpx.Response]":
        future: asyncio.Future[httpx.Response] = self._loop.create_future()
        self._busy += 1
        if self._busy > len(self._threads) and len(self._threads) < self._max_threads:
            thread = threading.Thread(target=self._work, name=f"verdict-client-post-{len(self._threads)}", daemon=True)
            thread.start()
            self._threads.append(thread)
        self._jobs.put((content, headers, future))
        return future

    def close(self, timeout: float) -> None:
        """Stops the threads once their requests are answered (up to `timeout` seconds in all), then the pool."""
        for _ in self._threads:
            self._jobs.put(None)
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._http.close()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            content, headers, future = job
            response: Optional[httpx.Response] = None
            failure: Optional[BaseException] = None
            try:
                response = self._http.post(BATCH_PATH, content=content, headers=headers)
            except Exception as error:  # the awaiting send sees it, as it would from the async stack
                failure = error
            try:
                self._loop.call_soon_threadsafe(self._answered, future, response, failure)
            except RuntimeError:  # the loop is closed (a close that timed out): nobody waits for this answer
                pass

    def _answered(self, future: "asyncio.Future[httpx.Response]", response: Optional[httpx.Response], failure: Optional[BaseException]) -> None:
        self._busy -= 1
        if future.done():  # cancelled: the loop is shutting down
            return
        if failure is not None:
            future.set_exception(failure)
        else:
            assert response is not None
            future.set_result(response)
