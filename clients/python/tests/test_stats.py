"""`stats()` and `on_error`, the TypeScript client's `stats()` and `onError`: counts of what delivery did,
and a callback told about every failed send (what it raises cannot stop delivery)."""
from __future__ import annotations

from typing import Iterator, List, Tuple

import pytest

from conftest import open_outcomes, put_task
from fault_proxy import FaultProxy
from service import Service
from verdict_client import AsyncVerdictClient, ClientStats, ErrorContext, Retry, VerdictClient, VerdictError

RETRY = Retry(max_attempts=3, base_delay=0.001, max_delay=0.01)
Told = List[Tuple[int, str, int, bool]]


@pytest.fixture
def proxy(service: Service) -> Iterator[FaultProxy]:
    started = FaultProxy(service.base_url)
    yield started
    started.close()


def recorder(told: Told) -> "callable[[VerdictError, ErrorContext], None]":  # type: ignore[valid-type]
    def on_error(error: VerdictError, context: ErrorContext) -> None:
        told.append((error.status, error.code, context.events, context.will_retry))
        raise RuntimeError("a bug in the caller's logging")

    return on_error


def test_the_sync_client_counts_its_sends_and_tells_on_error_of_each_failure(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    told: Told = []
    proxy.set_rates(refuse=1.0)
    with VerdictClient(proxy.base_url, service.token, retry=RETRY, on_error=recorder(told)) as client:
        assert client.stats() == ClientStats(buffered=0, waiting=0, in_flight=0, accepted=0, rejected=0, retried=0)
        refused = client.track({"outcome_key": key, "action": "step"}).exception(30)
        assert isinstance(refused, VerdictError) and refused.code == "QUEUE_REJECTED"
        proxy.set_rates()
        proxy.fail_items, proxy.fail_items_times = "unconfirmed", 1
        assert client.track({"outcome_key": key, "action": "step"}).result(30) is None
        client.flush()
        stats = client.stats()
    # Three sends of the refused event (two of them retries), two of the accepted one (one retry).
    assert stats == ClientStats(buffered=0, waiting=0, in_flight=0, accepted=1, rejected=1, retried=3)
    assert told == [(503, "QUEUE_REJECTED", 1, True), (503, "QUEUE_REJECTED", 1, True), (503, "QUEUE_REJECTED", 1, False), (202, "EVENT_UNCONFIRMED", 1, True)]


async def test_the_async_client_too(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    told: Told = []
    async with AsyncVerdictClient(service.base_url, "not-a-token", retry=RETRY, on_error=recorder(told)) as client:
        with pytest.raises(VerdictError) as refused:
            await client.track({"outcome_key": key, "action": "step"})
        assert refused.value.status == 401
        assert client.stats() == ClientStats(buffered=0, waiting=0, in_flight=0, accepted=0, rejected=1, retried=0)
    assert told == [(401, "TOKEN_INVALID", 1, False)]
