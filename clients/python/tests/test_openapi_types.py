"""The TypedDicts against the service's own `GET /v1/openapi.json`: each names a schema and has exactly its
fields, the required ones required, and each field the schema's JSON types (null where the schema allows it,
the same literals where it lists them, the same item types in a list), so the client's types cannot drift from
what the service validates and answers."""
from __future__ import annotations

import typing
from typing import Any, Dict, FrozenSet, Set, Tuple, Union

import httpx
import pytest

from service import Service
from verdict_client import types

#: Every schema the client's calls send or receive.
COVERED = {
    "ErrorDetail", "TaskEventInput", "AgentEventInput", "EventAccepted", "BatchAccepted", "ContractBody", "TaskRecord",
    "TaskList", "OpenOutcomeBody", "OutcomeView", "ObservationView", "OutcomeList", "OutcomeEventList", "LoggedEvent",
    "PutAgentBody", "AgentRecord", "AgentList", "PutCustomerBody", "CustomerRecord", "CustomerList", "PutRateCardBody",
    "RateCardRecord", "RateCardEntry", "RateCardList", "SubmittedEvent", "DeadLetterView", "DeadLetterList",
    "ReplayAccepted", "ChargeRecord", "ChargeList", "CustomerUsage", "UsageView", "CreateWebhookEndpointBody",
    "PatchWebhookEndpointBody", "WebhookEndpointView", "WebhookEndpointCreated", "WebhookEndpointList", "WebhookSecret",
    "WebhookSecretRotated", "MessageView", "WebhookMessageList", "AttemptView", "WebhookAttemptList", "WebhookResent",
}  # fmt: skip

#: What a value may be, as a set of JSON kinds ("string", "number", "boolean", "null", "object", "any"),
#: ("literal", value) for each listed value, and ("array", item kinds) for lists.
Kinds = FrozenSet[Any]
PRIMITIVES = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}
JSON_TYPES = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null", "object": "object"}


@pytest.fixture(scope="module")
def schemas(service: Service) -> Dict[str, Any]:
    document: Dict[str, Any] = httpx.get(f"{service.base_url}/v1/openapi.json", timeout=30).json()
    return dict(document["components"]["schemas"])


def schema_kinds(schema: Dict[str, Any], schemas: Dict[str, Any]) -> Kinds:
    if "$ref" in schema:
        return schema_kinds(schemas[schema["$ref"].rsplit("/", 1)[1]], schemas)
    if "oneOf" in schema or "anyOf" in schema:
        return frozenset().union(*(schema_kinds(s, schemas) for s in schema.get("oneOf", schema.get("anyOf"))))
    if "const" in schema:
        return frozenset({("literal", schema["const"])})
    if "enum" in schema:
        return frozenset(("literal", value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return frozenset({("array", schema_kinds(schema.get("items", {}), schemas))})
    if isinstance(kind, list):
        return frozenset().union(*(schema_kinds({**schema, "type": k}, schemas) for k in kind))
    return frozenset({JSON_TYPES[kind]}) if kind in JSON_TYPES else frozenset({"any"})


def hint_kinds(hint: Any) -> Kinds:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return frozenset({"any"})
    if origin is Union:
        return frozenset().union(*(hint_kinds(arg) for arg in args))
    if origin is typing.Literal:
        return frozenset(("literal", value) for value in args)
    if origin in (list, typing.List):
        return frozenset({("array", hint_kinds(args[0]))})
    if origin in (dict, typing.Dict) or typing.is_typeddict(hint):
        return frozenset({"object"})
    return frozenset({PRIMITIVES[hint]})


def comparable(kinds: Kinds) -> Kinds:
    """A set that names `any` compares as `any`; an int's and a float's numbers are one JSON kind."""
    return frozenset({"any"}) if "any" in kinds else kinds


def field_mismatches(name: str, schemas: Dict[str, Any]) -> Set[Tuple[str, Kinds, Kinds]]:
    typed = getattr(types, name)
    hints = typing.get_type_hints(typed)
    found = set()
    for field, schema in schemas[name].get("properties", {}).items():
        expected, actual = comparable(schema_kinds(schema, schemas)), comparable(hint_kinds(hints[field]))
        if "any" not in expected | actual and expected != actual:
            found.add((field, expected, actual))
    return found


def test_every_typed_dict_has_its_schemas_fields_and_required_ones(schemas: Dict[str, Any]) -> None:
    for name in sorted(COVERED):
        assert name in schemas, f"the service has no schema {name}"
        typed = getattr(types, name)
        properties, required = set(schemas[name].get("properties", {})), set(schemas[name].get("required", []))
        assert set(typed.__annotations__) | set(typed.__required_keys__) | set(typed.__optional_keys__) == properties, name
        assert set(typed.__required_keys__) == required, name
    failed_item = schemas["BatchAccepted"]["properties"]["failed"]["items"]
    assert set(types.BatchFailure.__required_keys__) == set(failed_item["required"]) == set(failed_item["properties"])


def test_every_field_has_its_schemas_json_types_and_literals(schemas: Dict[str, Any]) -> None:
    mismatches = {name: field_mismatches(name, schemas) for name in sorted(COVERED)}
    assert {name: found for name, found in mismatches.items() if found} == {}
    failed_item = schemas["BatchAccepted"]["properties"]["failed"]["items"]
    assert hint_kinds(typing.get_type_hints(types.BatchFailure)["reason"]) == schema_kinds(failed_item["properties"]["reason"], schemas)
