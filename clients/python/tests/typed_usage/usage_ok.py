"""Typed usage that must type-check under `mypy --strict` (tests/test_mypy.py)."""
from __future__ import annotations

import concurrent.futures
from typing import List, Optional

from verdict_client import AsyncVerdictClient, ErrorContext, Retry, VerdictClient, VerdictError
from verdict_client.types import AgentEvent, LoggedEvent, Outcome, OutcomeStatus, Task, TaskEvent


def sync_usage(token: str) -> Optional[str]:
    with VerdictClient("http://localhost:8080", token, retry=Retry(max_attempts=3), max_in_flight=2) as verdict:
        event: TaskEvent = {"outcome_key": "ticket:1", "action": "resolved", "properties": {"csat": 5}}
        variant_b: AgentEvent = {"key": "conv:1", "customer_key": "acme", "agent_key": "triage", "action": "reply"}
        tracked: List[concurrent.futures.Future[None]] = [verdict.track(event), verdict.track(variant_b)]
        verdict.flush()
        for future in tracked:
            error = future.exception()
            if isinstance(error, VerdictError):
                return f"{error.status} {error.code} {error.message} {error.details}"
        task: Task = verdict.tasks.put("support", {"name": "Support", "condition": "resolved"})
        outcome: Outcome = verdict.outcomes.open({"key": "ticket:1", "task_key": task["key"]})
        status: OutcomeStatus = outcome["status"]
        logged: List[LoggedEvent] = list(verdict.outcomes.events("ticket:1", limit=100))
        next_cursor: Optional[str] = verdict.outcomes.list(status="OPEN").page()["next_cursor"]
        hook = verdict.webhooks.create({"url": "https://example.com/hook", "event_types": ["outcome.confirmed"]})
        secret: str = hook["secret"]
        for message in verdict.webhooks.messages(hook["id"]):
            verdict.webhooks.resend(hook["id"], message["id"])
        held: int = verdict.stats().buffered
        return f"{status} {len(logged)} {next_cursor} {secret} {held}"


def log_failure(error: VerdictError, context: ErrorContext) -> None:
    print(error.code, context.events, context.will_retry)


with_on_error = VerdictClient("http://localhost:8080", "token", on_error=log_failure)


async def async_usage(token: str) -> float:
    async with AsyncVerdictClient("http://localhost:8080", token) as verdict:
        await verdict.track({"outcome_key": "ticket:1", "action": "resolved"})
        total = 0.0
        async for outcome in verdict.outcomes.list(task_key="support"):
            total += outcome["progress"]
        page = await verdict.charges.list(customer_key="acme")
        for charge in page["charges"]:
            total += charge["amount"]
        return total
