"""The one error the client raises: the service's error body or the client's own reason."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

#: Codes the client itself produces; a service answer carries the service's code (e.g. TASK_NOT_FOUND).
CLIENT_ERROR_CODES = (
    "NETWORK_ERROR",  # no answer: connection refused or reset, DNS, TLS; the request may have been applied
    "TIMEOUT",  # no answer within `timeout`; the request may have been applied
    "EVENT_REJECTED",  # a batch answered 202 listing this event in `failed` (`rejected`), on its last attempt
    "EVENT_UNCONFIRMED",  # the same with `unconfirmed`
    "CLIENT_CLOSED",  # `track` after `close()`
    "CLIENT_FAILED",  # the background thread or task hit an unexpected error (logged, raised on the next call)
    "UNEXPECTED_RESPONSE",  # an answer that is not the service's JSON
)


class VerdictError(Exception):
    """Raised by every call and set on every refused `track` future.

    `status` is the HTTP status of the answer (0 when there was none), `code` the service's code or the
    client's own, `details` the service's pointers into the request (`events[12].action`).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Optional[Sequence[Any]] = None,
        *,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        #: The service's `request_id` (also its `X-Request-Id`), for its logs.
        self.request_id = request_id
        #: The answer's `Retry-After`, in seconds.
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether the same request again can succeed: 408, 429, 5xx, timeouts and network errors."""
        if self.status == 0:
            return self.code in ("NETWORK_ERROR", "TIMEOUT")
        return self.status in (408, 429) or self.status >= 500

    def __repr__(self) -> str:
        return f"VerdictError({self.status}, {self.code!r}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}"


@dataclass(frozen=True)
class ErrorContext:
    """What `on_error` is told beside the error."""

    #: Events the failed request (or the failed items of its answer) carried.
    events: int
    #: True when the client sends them again; False when their `track` raises.
    will_retry: bool
