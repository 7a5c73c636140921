"""Each typed call against the real routes, paging included, sync and async, on an account of its own."""
from __future__ import annotations

import asyncio
import time
from typing import List

import pytest

from conftest import unique
from service import Service
from verdict_client import AsyncVerdictClient, VerdictClient, VerdictError
from verdict_client.types import DeadLetter, Task, WebhookMessage


@pytest.fixture(scope="module")
def token(service: Service) -> str:
    return service.create_account(unique("routes"))


def test_records_outcomes_and_events_with_paging(service: Service, token: str) -> None:
    with VerdictClient(service.base_url, token) as client:
        keys = [f"task-{i:02d}" for i in range(7)]
        for key in keys:
            task = client.tasks.put(key, {"name": f"Task {key}", "condition": "never_sent"})
            assert task["key"] == key and task["condition"] == "never_sent"
        assert client.tasks.get("task-03")["name"] == "Task task-03"
        page = client.tasks.list(limit=3).page()
        assert len(page["tasks"]) == 3 and page["next_cursor"] is not None
        assert sorted(t["key"] for t in client.tasks.list(limit=3)) == keys
        assert [len(p["tasks"]) for p in client.tasks.list(limit=3).pages()] == [3, 3, 1]
        client.tasks.delete("task-06")
        with pytest.raises(VerdictError) as missing:
            client.tasks.get("task-06")
        assert missing.value.status == 404 and missing.value.code == "TASK_NOT_FOUND" and missing.value.request_id

        opened = client.outcomes.open({"key": "ticket:1", "task_key": "task-00"})
        assert opened["key"] == "ticket:1" and opened["status"] == "OPEN"
        assert client.outcomes.get("ticket:1")["status"] == "OPEN"
        client.outcomes.open({"key": "ticket:2", "task_key": "task-00"})
        assert sorted(o["key"] for o in client.outcomes.list(status="OPEN", task_key="task-00", limit=1)) == ["ticket:1", "ticket:2"]

        assert client.events.send({"outcome_key": "ticket:1", "action": "step", "properties": {"seq": 0}})["accepted"] is True
        batch = client.events.batch([{"outcome_key": "ticket:1", "action": "step", "properties": {"seq": i}} for i in range(1, 5)])
        assert batch["accepted"] == 4 and batch["failed"] == []
        logged: List[int] = []
        for _ in range(100):
            logged = [e["properties"]["seq"] for e in client.outcomes.events("ticket:1", limit=2)]
            if len(logged) == 5:
                break
            time.sleep(0.2)
        assert logged == [0, 1, 2, 3, 4]


def test_configuration_charges_usage_and_dead_letters(service: Service, token: str) -> None:
    with VerdictClient(service.base_url, token) as client:
        agent = client.agents.put("triage", {"name": "Triage", "condition": "never_sent", "attribution_method": "sum"})
        assert agent["attribution_method"] == "sum"
        assert [a["key"] for a in client.agents.list()] == ["triage"]
        card = client.rate_cards.put("standard", {"currency": "USD", "entries": [{"agent_key": "triage", "unit_amount": 150}]})
        assert card["entries"] == [{"agent_key": "triage", "unit_amount": 150}]
        assert client.rate_cards.get("standard")["currency"] == "USD"
        assert [c["key"] for c in client.rate_cards.list()] == ["standard"]
        customer = client.customers.put("acme", {"name": "Acme", "rate_card_key": "standard"})
        assert customer["rate_card_key"] == "standard"
        assert [c["key"] for c in client.customers.list(limit=1)] == ["acme"]
        assert client.charges.list(customer_key="acme").page()["charges"] == []
        assert isinstance(client.usage.get(customer_key="acme")["usage"], list)

        client.track({"outcome_key": "nobody-opened-this", "action": "step"}).result(30)
        letters: List[DeadLetter] = []
        for _ in range(100):
            letters = list(client.dlq.list(code="OUTCOME_NOT_FOUND"))
            if letters:
                break
            time.sleep(0.2)
        assert [letter["outcome_key"] for letter in letters] == ["nobody-opened-this"]
        assert client.dlq.replay(letters[0]["id"])["id"] == letters[0]["id"]
        client.customers.delete("acme")
        client.agents.delete("triage")
        client.rate_cards.delete("standard")
        with pytest.raises(VerdictError) as missing:
            client.customers.get("acme")
        assert missing.value.code == "CUSTOMER_NOT_FOUND"


async def test_async_calls_and_paging(service: Service, token: str) -> None:
    async with AsyncVerdictClient(service.base_url, token) as client:
        for i in range(5):
            await client.tasks.put(f"async-{i}", {"name": "Async", "condition": "never_sent"})
        page = await client.tasks.list(limit=2)
        assert len(page["tasks"]) == 2 and page["next_cursor"] is not None
        keys: List[str] = []
        async for task in client.tasks.list(limit=2):
            keys.append(task["key"])
        assert [k for k in keys if k.startswith("async-")] == [f"async-{i}" for i in range(5)]
        got: Task = await client.tasks.get("async-0")
        assert got["name"] == "Async"
        await client.outcomes.open({"key": "async:1", "task_key": "async-0"})
        await client.track({"outcome_key": "async:1", "action": "step", "properties": {"seq": 0}})
        assert (await client.outcomes.get("async:1"))["key"] == "async:1"
        with pytest.raises(VerdictError) as missing:
            await client.outcomes.get("async:none")
        assert missing.value.code == "OUTCOME_NOT_FOUND"


def test_webhook_endpoints_secrets_messages_attempts_and_resend(service: Service, token: str) -> None:
    with VerdictClient(service.base_url, token) as client:
        # Nothing listens at port 9: the verdict's message stays pending, with failed attempts.
        created = client.webhooks.create({"url": "http://127.0.0.1:9/hook", "description": "nobody listens"})
        assert created["secret"].startswith("whsec_") and created["enabled"] is True
        endpoint = created["id"]
        second = client.webhooks.create({"url": "http://127.0.0.1:9/other", "event_types": ["charge.created"]})
        assert [e["id"] for e in client.webhooks.list(limit=1)] == sorted([endpoint, second["id"]])
        assert client.webhooks.get(endpoint)["description"] == "nobody listens"
        updated = client.webhooks.update(endpoint, {"event_types": ["outcome.confirmed", "outcome.failed"]})
        assert updated["event_types"] == ["outcome.confirmed", "outcome.failed"]
        assert client.webhooks.secret(endpoint)["secret"] == created["secret"]
        rotated = client.webhooks.rotate_secret(endpoint)
        assert rotated["secret"] != created["secret"] and rotated["previous_secret_expires_at"]

        client.tasks.put("hooked", {"name": "Hooked", "condition": "done"})
        client.outcomes.open({"key": "hooked:1", "task_key": "hooked"})
        client.track({"outcome_key": "hooked:1", "action": "done"}).result(30)
        messages: List[WebhookMessage] = []
        for _ in range(150):
            messages = list(client.webhooks.messages(endpoint, limit=1))
            if messages:
                break
            time.sleep(0.2)
        assert [m["event_type"] for m in messages] == ["outcome.confirmed"]
        assert isinstance(client.webhooks.attempts(endpoint, messages[0]["id"])["attempts"], list)
        assert client.webhooks.resend(endpoint, messages[0]["id"]) == {"resent": True, "id": messages[0]["id"]}
        client.webhooks.delete(second["id"])
        with pytest.raises(VerdictError) as missing:
            client.webhooks.get(second["id"])
        assert missing.value.code == "WEBHOOK_ENDPOINT_NOT_FOUND"


async def test_async_webhook_calls(service: Service) -> None:
    async with AsyncVerdictClient(service.base_url, service.create_account(unique("hooks"))) as client:
        created = await client.webhooks.create({"url": "http://127.0.0.1:9/hook"})
        assert (await client.webhooks.get(created["id"]))["url"] == "http://127.0.0.1:9/hook"
        assert [e["id"] async for e in client.webhooks.list()] == [created["id"]]
        assert (await client.webhooks.update(created["id"], {"enabled": False}))["enabled"] is False
        assert (await client.webhooks.secret(created["id"]))["secret"] == created["secret"]
        assert (await client.webhooks.rotate_secret(created["id"]))["secret"] != created["secret"]
        assert (await client.webhooks.messages(created["id"]))["messages"] == []
        await client.webhooks.delete(created["id"])
        with pytest.raises(VerdictError) as missing:
            await client.webhooks.attempts(created["id"], "no-such-message")
        assert missing.value.status == 404


async def test_async_configuration_events_charges_usage_and_dead_letters(service: Service) -> None:
    async with AsyncVerdictClient(service.base_url, service.create_account(unique("async-config"))) as client:
        await client.agents.put("triage", {"name": "Triage", "condition": "never_sent"})
        assert (await client.agents.get("triage"))["attribution_method"] in ("max", "first", "last", "min", "sum")
        await client.rate_cards.put("standard", {"currency": "EUR", "entries": [{"agent_key": "triage", "unit_amount": 5}]})
        assert [c["key"] async for c in client.rate_cards.list()] == ["standard"]
        await client.customers.put("acme", {"name": "Acme", "rate_card_key": "standard"})
        assert (await client.customers.list(limit=1))["customers"][0]["key"] == "acme"
        assert (await client.events.send({"key": "conv:1", "customer_key": "acme", "agent_key": "triage", "action": "step"}))["accepted"] is True
        batch = await client.events.batch([{"outcome_key": "nobody-opened-this", "action": "step"}])
        assert batch["accepted"] == 1 and batch["failed"] == []
        assert (await client.charges.list(customer_key="acme"))["charges"] == []
        assert isinstance((await client.usage.get(customer_key="acme"))["usage"], list)
        letters: List[DeadLetter] = []
        for _ in range(100):
            letters = [letter async for letter in client.dlq.list(code="OUTCOME_NOT_FOUND")]
            if letters:
                break
            await asyncio.sleep(0.2)
        assert [letter["outcome_key"] for letter in letters] == ["nobody-opened-this"]
        assert (await client.dlq.replay(letters[0]["id"]))["replayed"] is True
        await client.customers.delete("acme")
        await client.rate_cards.delete("standard")
        await client.agents.delete("triage")
        with pytest.raises(VerdictError) as missing:
            await client.agents.get("triage")
        assert missing.value.code == "AGENT_NOT_FOUND"
