"""The asyncio client's delivery against the real service through a fault-injecting proxy."""
from __future__ import annotations

import asyncio
from typing import AsyncIterator, Dict, List

import pytest
import pytest_asyncio

from conftest import EVENTS, OUTCOMES, log_of, open_outcomes, put_task
from fault_proxy import FaultProxy
from service import Service
from verdict_client import AsyncVerdictClient, Retry, VerdictError

TIMEOUT = 1.5
RETRY = Retry(max_attempts=30, base_delay=0.02, max_delay=0.5)


@pytest_asyncio.fixture
async def proxy(service: Service) -> AsyncIterator[FaultProxy]:
    started = FaultProxy(service.base_url, refuse=0.10, drop=0.10, delay=0.05, delay_seconds=TIMEOUT + 0.5, seed=11)
    yield started
    started.close()


async def test_events_from_50_tasks_are_applied_once_each_in_track_order_through_faults(service: Service, proxy: FaultProxy) -> None:
    outcomes = open_outcomes(service, put_task(service), OUTCOMES)
    tracked: Dict[str, List[int]] = {key: [] for key in outcomes}
    tasks_count = min(50, OUTCOMES)
    per_task = EVENTS // tasks_count

    async with AsyncVerdictClient(proxy.base_url, service.token, timeout=TIMEOUT, retry=RETRY) as client:

        async def agent(n: int) -> None:
            # Each task owns its outcomes; its events are tracked in order, awaited together.
            mine = outcomes[n::tasks_count]
            calls = []
            for i in range(per_task):
                key = mine[i % len(mine)]
                tracked[key].append(i)
                calls.append(client.track({"outcome_key": key, "action": "step", "properties": {"seq": i}}))
            await asyncio.gather(*calls)

        await asyncio.gather(*(agent(n) for n in range(tasks_count)))
    assert proxy.counts["refuse"] > 0 and proxy.counts["drop"] > 0 and proxy.counts["delay"] > 0
    for key, seqs in tracked.items():
        events = await asyncio.to_thread(log_of, service, key, len(seqs))
        assert [e["properties"]["seq"] for e in events] == seqs, f"{key}'s log"
        assert len({e["idempotency_key"] for e in events}) == len(seqs)


async def test_a_rejected_event_raises_only_for_itself(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    async with AsyncVerdictClient(service.base_url, service.token) as client:
        results = await asyncio.gather(
            *(client.track({"outcome_key": key, "action": "" if i == 4 else "step", "properties": {"seq": i}}) for i in range(10)),
            return_exceptions=True,
        )
    for i, result in enumerate(results):
        if i == 4:
            assert isinstance(result, VerdictError) and result.code == "VALIDATION_ERROR"
        else:
            assert result is None
    assert [e["properties"]["seq"] for e in log_of(service, key, 9)] == [i for i in range(10) if i != 4]


async def test_a_full_buffer_makes_track_wait(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    proxy.set_rates()
    proxy.hold()
    async with AsyncVerdictClient(proxy.base_url, service.token, max_buffered_events=5, flush_interval=0) as client:
        calls = [asyncio.ensure_future(client.track({"outcome_key": key, "action": "step", "properties": {"seq": i}})) for i in range(7)]
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert not any(call.done() for call in calls)
        assert client._held == 5 and len(client._room_waiters) == 2
        proxy.release()
        await asyncio.gather(*calls)
    assert [e["properties"]["seq"] for e in log_of(service, key, 7)] == list(range(7))


async def test_close_refuses_new_events(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    client = AsyncVerdictClient(service.base_url, service.token)
    await client.track({"outcome_key": key, "action": "step"})
    await client.close()
    with pytest.raises(VerdictError) as refused:
        await client.track({"outcome_key": key, "action": "step"})
    assert refused.value.code == "CLIENT_CLOSED"
