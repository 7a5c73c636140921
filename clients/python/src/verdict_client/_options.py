"""The client's options: one frozen dataclass for retries, and the checks every option gets at construction."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ._errors import ErrorContext, VerdictError

#: `on_error`: told about every failed send, retried or not.
OnError = Callable[[VerdictError, ErrorContext], None]

#: Most events the service takes in one batch request.
MAX_BATCH_EVENTS = 500


@dataclass(frozen=True)
class Retry:
    """Retries of `unconfirmed`/`rejected` items, 408, 429, 5xx, timeouts and network errors.

    `max_attempts`: sends of one event before it is given up (its `track` raises). `base_delay`: the first
    retry waits up to this many seconds (full jitter: a uniform draw from 0 to the cap). `max_delay`: the
    exponential cap never grows past this; a longer `Retry-After` still wins.
    """

    max_attempts: int = 10
    base_delay: float = 0.05
    max_delay: float = 5.0

    def __post_init__(self) -> None:
        positive_integer("retry.max_attempts", self.max_attempts)
        non_negative("retry.base_delay", self.base_delay)
        non_negative("retry.max_delay", self.max_delay)


@dataclass(frozen=True)
class Options:
    base_url: str
    token: str
    max_batch_size: int
    flush_interval: float
    max_buffered_events: int
    max_in_flight: int
    timeout: float
    retry: Retry
    idempotency: str
    on_error: Optional[OnError] = None


def positive_integer(name: str, value: int, maximum: int = 2**53 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value > maximum:
        raise ValueError(f"{name} must be an integer from 1 to {maximum} (got {value!r})")
    return value


def non_negative(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 or value == float("inf"):
        raise ValueError(f"{name} must be a finite number >= 0 (got {value!r})")
    return float(value)


def resolve_options(
    base_url: str,
    token: str,
    *,
    max_batch_size: int,
    flush_interval: float,
    max_buffered_events: int,
    max_in_flight: int,
    timeout: float,
    retry: Retry,
    idempotency: str,
    on_error: Optional[OnError] = None,
) -> Options:
    """Refuses values that cannot work at construction rather than at the first send."""
    if not isinstance(base_url, str) or base_url == "":
        raise ValueError("base_url is required")
    if not isinstance(token, str) or token == "":
        raise ValueError("token is required")
    if idempotency not in ("auto", "off"):
        raise ValueError('idempotency must be "auto" or "off"')
    if on_error is not None and not callable(on_error):
        raise ValueError("on_error must be a callable (error, context) -> None")
    if not isinstance(retry, Retry):
        raise ValueError("retry must be a verdict_client.Retry")
    if non_negative("timeout", timeout) == 0:
        raise ValueError("timeout must be > 0")
    return Options(
        base_url=base_url.rstrip("/"),
        token=token,
        max_batch_size=positive_integer("max_batch_size", max_batch_size, MAX_BATCH_EVENTS),
        flush_interval=non_negative("flush_interval", flush_interval),
        max_buffered_events=positive_integer("max_buffered_events", max_buffered_events),
        max_in_flight=positive_integer("max_in_flight", max_in_flight),
        timeout=float(timeout),
        retry=retry,
        idempotency=idempotency,
        on_error=on_error,
    )
