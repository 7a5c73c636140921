"""Verdict's Python client: `track` events with batching, idempotency keys (UUID v7), ordered retries per
outcome and backpressure, and typed calls for every route. See docs/client-python.md."""
from ._async_routes import AsyncPaged
from ._errors import ErrorContext, VerdictError
from ._options import Retry
from ._routes import Paged
from ._stats import ClientStats
from .async_client import AsyncVerdictClient
from .client import VerdictClient

__all__ = ["AsyncPaged", "AsyncVerdictClient", "ClientStats", "ErrorContext", "Paged", "Retry", "VerdictClient", "VerdictError"]
