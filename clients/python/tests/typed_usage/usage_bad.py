"""Typed usage that must NOT type-check: each line below is one mistake mypy has to catch (tests/test_mypy.py)."""
from __future__ import annotations

from verdict_client import VerdictClient


def wrong(verdict: VerdictClient) -> None:
    verdict.track({"outcome_key": "ticket:1"})  # no action
    verdict.track({"outcome_key": "ticket:1", "action": "x", "colour": "red"})  # unknown field
    verdict.tasks.put("support", {"name": "Support"})  # no condition
    status: int = verdict.outcomes.get("ticket:1")["status"]  # a Literal of strings
    verdict.outcomes.list(status="DONE")  # not an outcome status
    verdict.outcomes.get("ticket:1")["progres"]  # misspelt field
    verdict.webhooks.create({"url": "https://example.com/hook", "event_types": ["outcome.opened"]})  # no such event type
    verdict.webhooks.update("endpoint", {"enabled": "yes"})  # enabled is a bool
    verdict.stats().in_flight = 0  # stats are a frozen snapshot
