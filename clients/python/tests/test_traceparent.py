"""With opentelemetry-api installed and a span active, requests carry its `traceparent`; without one, none."""
from __future__ import annotations

from typing import Iterator
from urllib.parse import quote

import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from conftest import open_outcomes, put_task
from fault_proxy import FaultProxy
from service import Service
from verdict_client import AsyncVerdictClient, VerdictClient

TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
SPAN_ID = 0x00F067AA0BA902B7
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture
def proxy(service: Service) -> Iterator[FaultProxy]:
    started = FaultProxy(service.base_url)
    yield started
    started.close()


def span() -> NonRecordingSpan:
    return NonRecordingSpan(SpanContext(trace_id=TRACE_ID, span_id=SPAN_ID, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)))


def test_typed_calls_and_batches_carry_the_active_spans_traceparent(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    path = f"/v1/outcomes/{quote(key, safe='')}"
    with VerdictClient(proxy.base_url, service.token) as client:
        client.outcomes.get(key)
        with trace.use_span(span()):
            client.outcomes.get(key)
            traced = client.track({"outcome_key": key, "action": "step"})
        traced.result(30)
        client.track({"outcome_key": key, "action": "step"}).result(30)
    assert proxy.traceparents == [
        (path, None),
        (path, TRACEPARENT),
        ("/v1/events/batch", TRACEPARENT),
        ("/v1/events/batch", None),
    ]


async def test_the_async_client_carries_it_too(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    path = f"/v1/outcomes/{quote(key, safe='')}"
    async with AsyncVerdictClient(proxy.base_url, service.token) as client:
        with trace.use_span(span()):
            await client.outcomes.get(key)
            await client.track({"outcome_key": key, "action": "step"})
    assert proxy.traceparents == [(path, TRACEPARENT), ("/v1/events/batch", TRACEPARENT)]
