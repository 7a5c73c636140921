"""Both clients against a service whose account may send few events per second: batches cut short
(`rate_limited` items) and batches refused whole before they are read (429 QUOTA_EXCEEDED) are sent again,
without using up attempts, until every event is in its outcome's log once, in `track` order."""
from __future__ import annotations

import asyncio
import threading
from typing import Iterator, List, Set, Tuple

import pytest

from conftest import log_of, open_outcomes, put_task
from service import Service
from verdict_client import AsyncVerdictClient, ErrorContext, Retry, VerdictClient, VerdictError

RATE = 400
EVENTS = 2_000
OUTCOMES = 20
#: Few attempts: a quota refusal that counted as one would give events up.
RETRY = Retry(max_attempts=2, base_delay=0.01, max_delay=0.1)


@pytest.fixture(scope="module")
def slow_service() -> Iterator[Service]:
    started = Service(env={"VERDICT_QUOTA_EVENTS_PER_SECOND": str(RATE), "VERDICT_QUOTA_EVENT_BURST": str(RATE)})
    yield started
    started.stop()


class Refusals:
    """What `on_error` was told: (status, code) pairs, from the client's thread or task."""

    def __init__(self) -> None:
        self.seen: Set[Tuple[int, str]] = set()
        self._lock = threading.Lock()

    def __call__(self, error: VerdictError, context: ErrorContext) -> None:
        assert context.will_retry, f"{error!r} gave events up"
        with self._lock:
            self.seen.add((error.status, error.code))


def plan(keys: List[str]) -> List[Tuple[str, int]]:
    return [(keys[i % len(keys)], i) for i in range(EVENTS)]


def assert_logged_once_in_order(service: Service, keys: List[str]) -> None:
    for n, key in enumerate(keys):
        events = log_of(service, key, EVENTS // len(keys))
        assert [e["properties"]["seq"] for e in events] == list(range(n, EVENTS, len(keys))), f"{key}'s log"
        assert len({e["idempotency_key"] for e in events}) == len(events)


def test_the_sync_client_resends_what_the_rate_refused_until_all_land_once_in_order(slow_service: Service) -> None:
    keys = open_outcomes(slow_service, put_task(slow_service), OUTCOMES)
    refusals = Refusals()
    with VerdictClient(slow_service.base_url, slow_service.token, retry=RETRY, on_error=refusals) as client:
        futures = [client.track({"outcome_key": key, "action": "step", "properties": {"seq": i}}) for key, i in plan(keys)]
        client.flush(120)
    assert all(future.result(0) is None for future in futures)
    assert (429, "QUOTA_EXCEEDED") in refusals.seen and (202, "QUOTA_EXCEEDED") in refusals.seen, refusals.seen
    assert_logged_once_in_order(slow_service, keys)


async def test_the_async_client_resends_what_the_rate_refused_until_all_land_once_in_order(slow_service: Service) -> None:
    keys = open_outcomes(slow_service, put_task(slow_service), OUTCOMES)
    refusals = Refusals()
    async with AsyncVerdictClient(slow_service.base_url, slow_service.token, retry=RETRY, on_error=refusals) as client:
        calls = [client.track({"outcome_key": key, "action": "step", "properties": {"seq": i}}) for key, i in plan(keys)]
        results: List[object] = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 120)
    assert results == [None] * EVENTS
    assert (429, "QUOTA_EXCEEDED") in refusals.seen and (202, "QUOTA_EXCEEDED") in refusals.seen, refusals.seen
    await asyncio.to_thread(assert_logged_once_in_order, slow_service, keys)

