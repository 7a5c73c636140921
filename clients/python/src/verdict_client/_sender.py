"""Delivery behind `track`, on one asyncio loop: batches admitted events per outcome lane, sends up to
`max_in_flight` batches at once, and retries failed items in order until each is accepted or given up.

Both clients drive it: the async one in the caller's loop, the sync one in its background thread's loop.
Each front end bounds what it admits (backpressure) and is told through `on_settled` which events settled,
once per batch answer (or admission) rather than per event, so it completes their futures in one go.
"""
from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, Union

import httpx

from ._backoff import parse_retry_after, retry_delay
from ._errors import ErrorContext, VerdictError
from ._http import headers_for, read_answer, transport_error
from ._json import JsonEncoder
from ._options import Options
from ._posting import BATCH_PATH, PostBatch
from ._queue import Lane, OrderingQueue, Pending
from ._uuid7 import Uuid7Source

logger = logging.getLogger("verdict_client")

#: The service's batch body limit (interface spec, Limits): 5 MiB.
MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024
#: `{"events":[` and `]}` around the items.
ENVELOPE_BYTES = len('{"events":[]}')
#: The least wait before events refused for the account's rate go again: what the service's `Retry-After`
#: says for them (its bucket refills at least one event a second).
RATE_LIMITED_RETRY = 1.0
ITEM_PATH = re.compile(r"^events\[(\d+)\]")

Decision = Union[str, VerdictError]
#: Told the events settled since it was last called, each with its `error` (None: accepted).
Settle = Callable[[List[Pending]], None]


class _FlushWaiter:
    __slots__ = ("remaining", "below", "future")

    def __init__(self, remaining: int, below: int, future: "asyncio.Future[None]") -> None:
        self.remaining = remaining
        self.below = below
        self.future = future


class Sender:
    def __init__(self, options: Options, post: PostBatch, loop: asyncio.AbstractEventLoop, on_settled: Settle) -> None:
        self._options = options
        self._post = post
        self._loop = loop
        self._on_settled = on_settled
        self._queue = OrderingQueue(loop, self._pump)
        self._flush_waiters: List[_FlushWaiter] = []
        self._tasks: Set["asyncio.Task[None]"] = set()
        self._next_seq = 0
        #: Events settled and not yet handed to `on_settled`.
        self._done: List[Pending] = []
        self._encode = JsonEncoder()
        self._uuid7 = Uuid7Source()
        self._mint_keys = options.idempotency == "auto"
        self.buffered = 0
        self.in_flight = 0
        #: Events the service accepted (duplicates of an earlier send included), events rejected for good, and
        #: event sends that were retries (one event sent three times counts two): `stats()`.
        self.accepted = 0
        self.rejected = 0
        self.retried = 0
        self._linger: Optional[asyncio.TimerHandle] = None
        #: A partial batch has waited `flush_interval`: it may go without filling up.
        self._lingered = False
        #: An unexpected error of the background work, raised by the front end's next call.
        self.fault: Optional[BaseException] = None

    def admit(self, event: Any, future: Any, traceparent: Optional[str]) -> None:
        """Serialises the event (minting its idempotency key) and queues it on its outcome's lane; `admitted()`
        then sends what may go, once after a run of admissions."""
        pending = Pending(self._next_seq, traceparent, future)
        self._next_seq += 1
        self.buffered += 1
        try:
            text = self._encode(event)
        except (TypeError, ValueError, RecursionError) as error:
            # A set, a cycle, a NaN: nothing could send it.
            self._settle(pending, VerdictError(0, "VALIDATION_ERROR", f"the event cannot be serialised as JSON: {error}"))
            return
        # A malformed event (not a dict, no key) still goes to the service, which says what is wrong with it.
        is_dict = isinstance(event, dict)
        if is_dict and self._mint_keys and "idempotency_key" not in event:
            text = with_idempotency_key(text, self._uuid7())
        # Variant A names its outcome by outcome_key, Variant B by key; both share the account's key space.
        key = event.get("outcome_key", event.get("key")) if is_dict else None
        pending.json = text
        pending.size = size = len(text)
        if size + 1 + ENVELOPE_BYTES > MAX_BATCH_BODY_BYTES:
            message = f"the event is {size} bytes: no batch can carry it (5 MiB body limit)"
            self._settle(pending, VerdictError(0, "PAYLOAD_TOO_LARGE", message))
            return
        pending.lane = self._queue.lane(key if isinstance(key, str) else "")
        self._queue.push(pending)

    def admitted(self) -> None:
        """Hands over the events refused at admission and sends what may go now."""
        self._hand_over()
        self._pump()

    async def flush(self) -> None:
        """Returns once every event admitted before the call has settled (accepted or rejected)."""
        self._hand_over()
        if self.buffered == 0:
            return
        future: asyncio.Future[None] = self._loop.create_future()
        self._flush_waiters.append(_FlushWaiter(self.buffered, self._next_seq, future))
        self._pump()
        await future

    def _pump(self) -> None:
        """Sends what may go now: full batches at once, a partial one after `flush_interval` or on `flush()`."""
        max_batch, max_in_flight = self._options.max_batch_size, self._options.max_in_flight
        while self.in_flight < max_in_flight and self._queue.ready_events > 0:
            if self._queue.ready_events < max_batch and not self._lingered and not self._flush_waiters:
                if self._linger is None:
                    self._linger = self._loop.call_later(self._options.flush_interval, self._lingered_out)
                return
            batch = self._queue.take(max_batch, MAX_BATCH_BODY_BYTES - ENVELOPE_BYTES)
            if not batch:
                break
            self.in_flight += 1
            task = self._loop.create_task(self._send(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if self._queue.ready_events == 0:
            self._lingered = False

    def _lingered_out(self) -> None:
        self._linger = None
        self._lingered = True
        self._pump()

    async def _send(self, batch: List[Pending]) -> None:
        in_flight = True
        try:
            answer, failure, retry_after = await self._request(batch)
            in_flight = False
            self.in_flight -= 1
            if answer is not None:
                self._answered(batch, answer, retry_after)
            else:
                assert failure is not None
                self._failed(batch, failure)
        except asyncio.CancelledError:
            raise  # the loop is shutting down (a close that timed out)
        except Exception as error:  # never dies silently: logged, kept for the next call, the batch settled
            if in_flight:
                self.in_flight -= 1
            self._died(error, batch)
        self._hand_over()
        self._pump()

    async def _request(self, batch: List[Pending]) -> Tuple[Optional[Dict[str, Any]], Optional[VerdictError], float]:
        """The batch's 202 body and its `Retry-After`, or the error the request ended with."""
        retried = 0
        for event in batch:
            if event.attempts:
                retried += 1
            event.attempts += 1
        self.retried += retried
        # The batch continues the trace of its first event tracked inside a span.
        traceparent = next((event.traceparent for event in batch if event.traceparent is not None), None)
        body = '{"events":[' + ",".join([event.json for event in batch]) + "]}"
        headers = headers_for(self._options.token, True, traceparent)
        try:
            response = await self._post(body.encode(), headers)
        except httpx.HTTPError as error:
            return None, transport_error(error, self._options.timeout, "POST", BATCH_PATH), 0.0
        try:
            answer = read_answer("POST", BATCH_PATH, response)
        except VerdictError as error:
            return None, error, 0.0
        if not isinstance(answer, dict) or not isinstance(answer.get("failed"), list):
            return None, VerdictError(response.status_code, "UNEXPECTED_RESPONSE", "the batch answer is not the service's 202 body"), 0.0
        return answer, None, parse_retry_after(response.headers.get("retry-after")) or 0.0

    def _answered(self, batch: List[Pending], answer: Dict[str, Any], retry_after: float) -> None:
        """A 202: items not in `failed` are in; failed ones (and, by the cascade rule, their outcome's later
        ones) go again. Items refused for the account's rate (`rate_limited`) wait like after a 429 and never
        count as attempts: the service took none of them and asked for a slower pace."""
        failed: Dict[int, Dict[str, Any]] = {}
        for item in answer["failed"]:
            if isinstance(item, dict) and isinstance(item.get("index"), int):
                failed[item["index"]] = item
        if not failed:
            self._all_accepted(batch)
            return
        max_attempts = self._options.retry.max_attempts
        #: rejected, unconfirmed, given up (of those two), rate_limited
        counts = [0, 0, 0, 0]

        def decide(event: Pending, index: int) -> Decision:
            item = failed.get(index)
            if item is None:
                return "accept"
            reason = item.get("reason")
            if reason == "rate_limited":
                counts[3] += 1
                event.attempts -= 1
                return "throttle"
            counts[1 if reason == "unconfirmed" else 0] += 1
            if event.attempts < max_attempts:
                return "retry"
            counts[2] += 1
            code = "EVENT_UNCONFIRMED" if reason == "unconfirmed" else "EVENT_REJECTED"
            return VerdictError(202, code, f"the service answered {reason} for this event on each of {event.attempts} attempts")

        logger.debug("batch answered 202 with %d failed items; they go again", len(failed))
        self._settle_lanes(batch, decide, retry_after)
        rejected, unconfirmed, given_up, rate_limited = counts
        if rejected + unconfirmed > 0:
            code = "EVENT_UNCONFIRMED" if unconfirmed > 0 else "EVENT_REJECTED"
            message = f"batch answered 202 with {unconfirmed} unconfirmed and {rejected} rejected items"
            self._report(VerdictError(202, code, message), rejected + unconfirmed, given_up < rejected + unconfirmed)
        if rate_limited > 0:
            message = f"batch answered 202 with {rate_limited} items refused for the account's events-per-second quota"
            self._report(VerdictError(202, "QUOTA_EXCEEDED", message, retry_after=retry_after), rate_limited, True)

    def _failed(self, batch: List[Pending], error: VerdictError) -> None:
        """The whole request failed: resend on a retryable answer, reject what the service refused otherwise."""
        blamed: Optional[Dict[int, List[Any]]] = None
        if error.status == 400 and error.code == "VALIDATION_ERROR":
            blamed = blamed_items(error.details)
        logger.debug("batch of %d events failed: %s", len(batch), error)
        max_attempts = self._options.retry.max_attempts
        retried = error.retryable and any(event.attempts < max_attempts for event in batch)
        self._report(error, len(batch), retried or (blamed is not None and len(blamed) < len(batch)))

        def decide(event: Pending, index: int) -> Decision:
            if error.status == 429 and error.code == "QUOTA_EXCEEDED":
                # Refused whole for the account's rate (before the service read it): like rate_limited items.
                event.attempts -= 1
                return "throttle"
            if error.retryable:
                return "retry" if event.attempts < max_attempts else error
            if blamed is None:
                return error
            details = blamed.get(index)
            if details is not None:
                message = "; ".join(f"{d.get('path')}: {d.get('message')}" for d in details if isinstance(d, dict))
                return VerdictError(400, "VALIDATION_ERROR", message, details, request_id=error.request_id)
            # Valid, but the batch was refused whole for another item: nothing was enqueued, so this send does
            # not count against the event's attempts, and it may go again at once.
            event.attempts -= 1
            return "resend"

        self._settle_lanes(batch, decide, error.retry_after or 0.0)

    def _all_accepted(self, batch: List[Pending]) -> None:
        """The common answer, settled without deciding event by event: every lane handed back empty-handed."""
        lane: Optional[Lane] = None
        done = self._done
        accepted = 0
        for event in batch:
            if event.lane is not lane:
                if lane is not None:
                    self._queue.settle(lane, [], 0.0)
                lane = event.lane
            if not event.settled:
                event.settled = True
                done.append(event)
                accepted += 1
        if lane is not None:
            self._queue.settle(lane, [], 0.0)
        self.accepted += accepted
        self.buffered -= accepted

    def _settle_lanes(self, batch: List[Pending], decide: Callable[[Pending, int], Decision], retry_after: float) -> None:
        """Decides each event of a returned batch (`accept`, `retry` after a backoff, `throttle`: retry no sooner
        than the rate quota allows, `resend` at once, or the error to reject it with) and hands each lane back
        with its events to send again."""
        lane: Optional[Lane] = None
        again: List[Pending] = []
        backoff = False
        floor = retry_after

        def hand_back() -> None:
            if lane is None:
                return
            attempt = max(1, again[0].attempts if again else 1)
            delay = retry_delay(attempt, self._options.retry, floor) if backoff else 0.0
            self._queue.settle(lane, list(again), delay)

        # A batch holds each lane's events together, in lane order (OrderingQueue.take).
        for index, event in enumerate(batch):
            if event.lane is not lane:
                hand_back()
                lane, again, backoff, floor = event.lane, [], False, retry_after
            decision = decide(event, index)
            if decision == "accept":
                self._settle(event, None)
            elif decision == "retry" or decision == "resend" or decision == "throttle":
                again.append(event)
                backoff = backoff or decision != "resend"
                if decision == "throttle":
                    # Refused for the account's rate: no sooner than its bucket refills, `Retry-After` or not.
                    floor = max(floor, RATE_LIMITED_RETRY)
            else:
                assert isinstance(decision, VerdictError)
                self._settle(event, decision)
        hand_back()

    def _report(self, error: VerdictError, events: int, will_retry: bool) -> None:
        """Tells `on_error`; what it raises is logged and dropped, since a logging callback must not stop delivery."""
        on_error = self._options.on_error
        if on_error is None:
            return
        try:
            on_error(error, ErrorContext(events, will_retry))
        except Exception as raised:
            logger.debug("verdict_client: on_error raised %r (ignored)", raised)

    def _settle(self, event: Pending, error: Optional[VerdictError]) -> None:
        """Marks the event settled; `_hand_over` tells the front end."""
        if event.settled:
            return
        event.settled = True
        event.error = error
        self.buffered -= 1
        if error is None:
            self.accepted += 1
        else:
            self.rejected += 1
        self._done.append(event)

    def _hand_over(self) -> None:
        """Tells the front end and the waiting `flush` calls what settled since the last hand-over. Every path
        that settles events hands them over before it yields to the loop, so `flush` counts none twice."""
        done = self._done
        if not done:
            return
        self._done = []
        try:
            self._on_settled(done)
        finally:
            self._notify_flush(done)

    def _notify_flush(self, done: List[Pending]) -> None:
        if not self._flush_waiters:
            return
        finished = False
        for waiter in self._flush_waiters:
            below = waiter.below
            waiter.remaining -= len(done) if below >= self._next_seq else sum(1 for event in done if event.seq < below)
            if waiter.remaining <= 0:
                if not waiter.future.done():
                    waiter.future.set_result(None)
                finished = True
        if finished:
            self._flush_waiters = [w for w in self._flush_waiters if w.remaining > 0]

    def _died(self, error: BaseException, batch: List[Pending]) -> None:
        """An unexpected error in the background: logged, kept for the next call, and the batch's unsettled
        events fail with it, so no `track` waits forever."""
        logger.error("verdict_client: background delivery failed", exc_info=error)
        self.fault = error
        failure = VerdictError(0, "CLIENT_FAILED", f"the client's background delivery failed: {error!r}")
        for event in batch:
            if not event.settled:
                self._settle(event, failure)
            if event.lane is not None and event.lane.busy:
                self._queue.settle(event.lane, [], 0.0)


def with_idempotency_key(text: str, key: str) -> str:
    """The event's JSON (an object's) with its minted key as the last field; `{}` has no field to follow."""
    if text == "{}":
        return '{"idempotency_key":"' + key + '"}'
    return text[:-1] + ',"idempotency_key":"' + key + '"}'


def blamed_items(details: Any) -> Optional[Dict[int, List[Any]]]:
    """The batch items a VALIDATION_ERROR points at (`events[12].action`), with their details."""
    if not isinstance(details, list) or not details:
        return None
    items: Dict[int, List[Any]] = {}
    for detail in details:
        match = ITEM_PATH.match(str(detail.get("path", ""))) if isinstance(detail, dict) else None
        # A detail about the batch as a whole (say, its length) blames every item alike.
        if match is None:
            return None
        items.setdefault(int(match.group(1)), []).append(detail)
    return items
