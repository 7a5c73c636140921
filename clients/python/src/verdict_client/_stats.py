"""What `stats()` reports: the caller's view of its own backlog and delivery, for its metrics and logs."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClientStats:
    #: Events tracked and not yet settled (queued, held back for a retry, or in flight); at most `max_buffered_events`.
    buffered: int
    #: `track` calls waiting for room in the buffer.
    waiting: int
    #: Batch requests in flight; at most `max_in_flight`.
    in_flight: int
    #: Events the service accepted (duplicates of an earlier send included).
    accepted: int
    #: Events whose `track` raised.
    rejected: int
    #: Event sends that were retries (one event sent three times counts two).
    retried: int
