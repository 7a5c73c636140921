"""One HTTP exchange with the service, shared by the sync and async transports: headers, the query, and the
answer read into its JSON body or a VerdictError (the service's error body, or the client's own code)."""
from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional, Union
from urllib.parse import quote

import httpx

from ._backoff import parse_retry_after
from ._errors import VerdictError
from ._trace import active_traceparent

#: Query parameters; None values are left out.
Query = Mapping[str, Union[str, int, None]]

#: `traceparent` argument meaning "the span active now".
ACTIVE = "active"


def segment(value: str) -> str:
    """A path parameter, percent-encoded as one segment."""
    return quote(value, safe="")


def headers_for(token: str, has_body: bool, traceparent: Optional[str]) -> Dict[str, str]:
    headers = {"authorization": f"Bearer {token}"}
    if has_body:
        headers["content-type"] = "application/json"
    trace = active_traceparent() if traceparent == ACTIVE else traceparent
    if trace is not None:
        headers["traceparent"] = trace
    return headers


def params_of(query: Optional[Query]) -> Dict[str, str]:
    if not query:
        return {}
    return {name: str(value) for name, value in query.items() if value is not None}


def transport_error(error: Exception, timeout: float, method: str, path: str) -> VerdictError:
    if isinstance(error, httpx.TimeoutException):
        return VerdictError(0, "TIMEOUT", f"{method} {path}: no answer within {timeout} s")
    return VerdictError(0, "NETWORK_ERROR", f"{method} {path}: {error!r}")


def read_answer(method: str, path: str, response: httpx.Response) -> Any:
    """The parsed JSON body of a 2xx (None for a bodiless one); raises VerdictError otherwise."""
    text = response.text
    body: Any = None
    parsed = True
    if text != "":
        try:
            body = json.loads(text)
        except ValueError:
            parsed = False
    status = response.status_code
    if 200 <= status < 300:
        if not parsed:
            raise VerdictError(status, "UNEXPECTED_RESPONSE", f"{method} {path}: answer is not JSON")
        return body
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    error = body.get("error") if parsed and isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        raise VerdictError(
            status,
            error["code"],
            str(error.get("message", "")),
            error.get("details"),
            request_id=error.get("request_id"),
            retry_after=retry_after,
        )
    raise VerdictError(
        status,
        "UNEXPECTED_RESPONSE",
        f"{method} {path}: HTTP {status} without the service's error body",
        request_id=response.headers.get("x-request-id"),
        retry_after=retry_after,
    )


def body_text(body: Any) -> str:
    return json.dumps(body, separators=(",", ":"))
