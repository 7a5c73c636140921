"""Events refused for the account's rate (`rate_limited` items, or a batch answered 429 QUOTA_EXCEEDED whole)
go again no sooner than a second later, as the TypeScript client's do, even when no `Retry-After` says so;
and the refusals never use up attempts. The sender is driven directly, with canned answers."""
from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import httpx
import pytest

from verdict_client import Retry
from verdict_client._options import resolve_options
from verdict_client._queue import Pending
from verdict_client._sender import Sender

REFUSALS: Dict[str, httpx.Response] = {
    "rate_limited items": httpx.Response(202, json={"accepted": 0, "failed": [{"index": 0, "reason": "rate_limited"}], "duplicates": []}),
    "429 QUOTA_EXCEEDED": httpx.Response(429, json={"error": {"code": "QUOTA_EXCEEDED", "message": "past the account's events per second"}}),
}


@pytest.mark.parametrize("refusal", list(REFUSALS))
async def test_a_rate_refusal_waits_a_second_and_uses_no_attempt(refusal: str) -> None:
    loop = asyncio.get_running_loop()
    answers = [REFUSALS[refusal], REFUSALS[refusal], httpx.Response(202, json={"accepted": 1, "failed": [], "duplicates": []})]
    sent_at: List[float] = []

    async def post(content: bytes, headers: Dict[str, str]) -> httpx.Response:
        sent_at.append(loop.time())
        return answers.pop(0)

    def settled(done: List[Pending]) -> None:
        for event in done:
            event.future.set_result(event.error)

    options = resolve_options(
        "http://verdict.invalid", "token", max_batch_size=500, flush_interval=0, max_buffered_events=10, max_in_flight=1,
        timeout=5.0, retry=Retry(max_attempts=1, base_delay=0.001, max_delay=0.01), idempotency="auto",
    )
    sender = Sender(options, post, loop, settled)
    outcome: asyncio.Future[Any] = loop.create_future()
    sender.admit({"outcome_key": "o", "action": "step"}, outcome, None)
    sender.admitted()
    assert await asyncio.wait_for(outcome, 10) is None  # accepted on the third send, with one attempt allowed
    assert [round(b - a, 1) >= 1.0 for a, b in zip(sent_at, sent_at[1:])] == [True, True]
