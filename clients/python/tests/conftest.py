"""One real service (redis-server + `verdict serve`) for the whole run, and helpers the tests share."""
from __future__ import annotations

import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any, Iterator, List

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from service import Service  # noqa: E402

#: Sizes of the delivery tests, smaller while developing on a loaded machine.
EVENTS = int(os.environ.get("VERDICT_PY_EVENTS", "20000"))
OUTCOMES = int(os.environ.get("VERDICT_PY_OUTCOMES", "200"))


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    # Webhook endpoints at 127.0.0.1 (test_routes.py) are refused without it.
    started = Service(env={"VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS": "true"})
    yield started
    started.stop()


def unique(label: str) -> str:
    return f"{label}-{secrets.token_hex(4)}"


def admin(service: Service) -> httpx.Client:
    return httpx.Client(base_url=service.base_url, headers={"authorization": f"Bearer {service.token}"}, timeout=30)


def put_task(service: Service) -> str:
    """A task whose condition no test event meets: its outcomes stay open, so every event lands in their logs."""
    task = unique("task")
    with admin(service) as http:
        assert http.put(f"/v1/tasks/{task}", json={"name": "Python client", "condition": "never_sent"}).status_code == 201
    return task


def open_outcomes(service: Service, task: str, count: int) -> List[str]:
    keys = [f"{unique('o')}:{i}" for i in range(count)]
    with admin(service) as http:
        for key in keys:
            assert http.post("/v1/outcomes", json={"key": key, "task_key": task}).status_code == 201
    return keys


def log_of(service: Service, key: str, expected: int, seconds: float = 60) -> List[Any]:
    """The whole event log of one outcome (paged), once the worker has applied `expected` events."""
    deadline = time.monotonic() + seconds
    with admin(service) as http:
        while True:
            events: List[Any] = []
            cursor = None
            while True:
                params = {"limit": "1000", **({"cursor": cursor} if cursor else {})}
                page = http.get(f"/v1/outcomes/{key}/events", params=params).json()
                events.extend(page["events"])
                cursor = page["next_cursor"]
                if cursor is None:
                    break
            if len(events) >= expected or time.monotonic() > deadline:
                return events
            time.sleep(0.2)
