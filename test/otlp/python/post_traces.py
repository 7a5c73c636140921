"""Posts planned GenAI spans to Verdict's POST /v1/traces as OTLP/HTTP protobuf, built with the official
opentelemetry-proto bindings and Google's protobuf runtime, gzip-compressed where a request asks for it.

Usage: post_traces.py PLAN.json URL TOKEN. The plan is {"requests": [{"gzip": bool, "resource": {...},
"spans": [span, ...]}]} with spans as test/otlp/genai-conversations.ts plans them. Prints one JSON line: per
request the HTTP status and the ExportTraceServiceResponse's partial_success, decoded with the bindings.
"""

import gzip
import json
import sys
import urllib.error
import urllib.request

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

KINDS = {"internal": Span.SPAN_KIND_INTERNAL, "client": Span.SPAN_KIND_CLIENT}


def any_value(value):
    # bool before int: in Python a bool is an int.
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, list):
        return AnyValue(array_value=ArrayValue(values=[any_value(v) for v in value]))
    return AnyValue(string_value=value)


def attributes(mapping):
    return [KeyValue(key=key, value=any_value(value)) for key, value in mapping.items()]


def nanos(ms):
    return int(ms) * 1_000_000


def span(planned):
    built = Span(
        trace_id=bytes.fromhex(planned["traceId"]),
        span_id=bytes.fromhex(planned["spanId"]),
        parent_span_id=bytes.fromhex(planned["parentSpanId"]),
        name=planned["name"],
        kind=KINDS[planned["kind"]],
        start_time_unix_nano=nanos(planned["startMs"]),
        end_time_unix_nano=nanos(planned["endMs"]),
        attributes=attributes(planned["attributes"]),
    )
    for event in planned["events"]:
        built.events.add(name=event["name"], time_unix_nano=nanos(event["atMs"]), attributes=attributes(event["attributes"]))
    if "error" in planned:
        built.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message=planned["error"]))
    return built


def request_body(request):
    message = ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(
                resource=Resource(attributes=attributes(request["resource"])),
                scope_spans=[ScopeSpans(scope=InstrumentationScope(name="verdict-python-test", version="1"), spans=[span(s) for s in request["spans"]])],
            )
        ]
    )
    return message.SerializeToString()


def post(url, token, request):
    body = request_body(request)
    headers = {"Content-Type": "application/x-protobuf", "Authorization": f"Bearer {token}"}
    if request["gzip"]:
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers, method="POST"), timeout=30) as answer:
            status, payload, content_type = answer.status, answer.read(), answer.headers.get("Content-Type")
    except urllib.error.HTTPError as refused:
        return {"status": refused.code, "body": refused.read().decode("utf-8", "replace")}
    response = ExportTraceServiceResponse()
    response.ParseFromString(payload)
    partial = response.partial_success
    return {"status": status, "content_type": content_type, "rejected_spans": partial.rejected_spans, "error_message": partial.error_message}


def main():
    plan_file, url, token = sys.argv[1:4]
    with open(plan_file, encoding="utf-8") as f:
        plan = json.load(f)
    print(json.dumps([post(url, token, request) for request in plan["requests"]]))


if __name__ == "__main__":
    main()
