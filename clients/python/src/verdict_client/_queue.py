"""Events waiting to be sent, one lane per outcome.

A lane is either ready (its events may join the next batch), busy (a request carrying its events is in
flight) or held back (waiting out a retry delay). Only ready lanes give events, so no two requests in flight
carry the same outcome, and a lane's failed events go back to its front, ahead of the ones tracked after them.
"""
from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional

from ._errors import VerdictError


class Pending:
    """One tracked event on its way to the service."""

    __slots__ = ("json", "size", "lane", "attempts", "seq", "traceparent", "future", "settled", "error")

    def __init__(self, seq: int, traceparent: Optional[str], future: Any) -> None:
        #: The event as JSON text (its minted idempotency key included), serialised once at admission and resent as is.
        self.json = ""
        #: Bytes of what is sent (the JSON is ASCII: `json.dumps` escapes the rest).
        self.size = 0
        self.lane: Optional[Lane] = None
        #: Sends so far.
        self.attempts = 0
        #: Order of admission: `flush` waits for every event below its mark.
        self.seq = seq
        self.traceparent = traceparent
        #: The front end's future (concurrent or asyncio), settled once.
        self.future = future
        self.settled = False
        #: Why it was refused, once settled (None: accepted).
        self.error: Optional[VerdictError] = None


class Lane:
    __slots__ = ("key", "events", "busy", "held", "ready")

    def __init__(self, key: str) -> None:
        self.key = key
        self.events: Deque[Pending] = deque()
        self.busy = False
        self.held: Optional[asyncio.TimerHandle] = None
        self.ready = False


#: Lanes kept before the first sweep of idle ones.
MIN_SWEEP_AT = 4096


class OrderingQueue:
    """Outcome lanes, and the ready ones in the order they became ready (a fair, roughly `track`-ordered pick)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_ready: Callable[[], None]) -> None:
        self._loop = loop
        self._on_ready = on_ready
        self._lanes: Dict[str, Lane] = {}
        self._ready: Deque[Lane] = deque()
        #: Events in ready lanes: what the next batches can take now.
        self.ready_events = 0
        self._sweep_at = MIN_SWEEP_AT

    def lane(self, key: str) -> Lane:
        lane = self._lanes.get(key)
        if lane is None:
            if len(self._lanes) >= self._sweep_at:
                self._sweep()
            lane = self._lanes[key] = Lane(key)
        return lane

    def push(self, event: Pending) -> None:
        lane = event.lane
        assert lane is not None
        lane.events.append(event)
        if lane.ready:
            self.ready_events += 1
        else:
            self._mark_ready(lane)

    def take(self, max_events: int, max_bytes: int) -> List[Pending]:
        """Events from ready lanes, lane by lane, up to `max_events` and `max_bytes` (plus a separator each);
        every lane it takes from is busy until `settle`."""
        batch: List[Pending] = []
        size = 0
        while self._ready:
            lane = self._ready[0]
            taken = 0
            events = lane.events
            while events and len(batch) < max_events:
                event = events[0]
                if batch and size + event.size + 1 > max_bytes:
                    break
                batch.append(events.popleft())
                size += event.size + 1
                taken += 1
            if taken == 0:
                break
            self._ready.popleft()
            self.ready_events -= len(events) + taken
            lane.ready = False
            lane.busy = True
            if len(batch) >= max_events or events:
                break
        return batch

    def settle(self, lane: Lane, retry: List[Pending], delay: float) -> None:
        """A request carrying `lane`'s events came back: `retry` (in send order) goes back to the lane's front,
        which is then held back for `delay` seconds before it may be sent again."""
        lane.busy = False
        if retry:
            lane.events.extendleft(reversed(retry))
        if retry and delay > 0:
            lane.held = self._loop.call_later(delay, self._release, lane)
        else:
            self._mark_ready(lane)

    def _release(self, lane: Lane) -> None:
        lane.held = None
        self._mark_ready(lane)
        self._on_ready()

    def _mark_ready(self, lane: Lane) -> None:
        if lane.ready or lane.busy or lane.held is not None or not lane.events:
            return
        lane.ready = True
        self._ready.append(lane)
        self.ready_events += len(lane.events)

    def _sweep(self) -> None:
        """Forgets idle lanes, so a long-lived client's memory follows its backlog, not every outcome it saw."""
        for key in [k for k, lane in self._lanes.items() if not lane.events and not lane.busy and lane.held is None]:
            del self._lanes[key]
        self._sweep_at = max(MIN_SWEEP_AT, len(self._lanes) * 2)
