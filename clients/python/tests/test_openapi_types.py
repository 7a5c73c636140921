"""The TypedDicts against the service's own `GET /v1/openapi.json`: each names a schema, and has exactly its
fields, the required ones required, so the client's types cannot drift from what the service validates."""
from __future__ import annotations

from typing import Any, Dict, Set

import httpx

from service import Service
from verdict_client import types

#: Every schema the client's calls send or receive (the webhook routes have no typed calls yet).
COVERED = {
    "ErrorDetail", "TaskEventInput", "AgentEventInput", "EventAccepted", "BatchAccepted", "ContractBody", "TaskRecord",
    "TaskList", "OpenOutcomeBody", "OutcomeView", "ObservationView", "OutcomeList", "OutcomeEventList", "LoggedEvent",
    "PutAgentBody", "AgentRecord", "AgentList", "PutCustomerBody", "CustomerRecord", "CustomerList", "PutRateCardBody",
    "RateCardRecord", "RateCardEntry", "RateCardList", "SubmittedEvent", "DeadLetterView", "DeadLetterList",
    "ReplayAccepted", "ChargeRecord", "ChargeList", "CustomerUsage", "UsageView",
}  # fmt: skip


def fields(schema: Dict[str, Any]) -> tuple[Set[str], Set[str]]:
    properties = set(schema.get("properties", {}))
    return properties, set(schema.get("required", []))


def test_every_typed_dict_has_its_schemas_fields_and_required_ones(service: Service) -> None:
    schemas = httpx.get(f"{service.base_url}/v1/openapi.json", timeout=30).json()["components"]["schemas"]
    for name in sorted(COVERED):
        assert name in schemas, f"the service has no schema {name}"
        typed = getattr(types, name)
        properties, required = fields(schemas[name])
        assert set(typed.__annotations__) | set(typed.__required_keys__) | set(typed.__optional_keys__) == properties, name
        assert set(typed.__required_keys__) == required, name
    failed_item = schemas["BatchAccepted"]["properties"]["failed"]["items"]
    assert set(types.BatchFailure.__required_keys__) == set(failed_item["required"]) == set(failed_item["properties"])
