"""How long to wait before a retry: exponential backoff with full jitter, never shorter than `Retry-After`."""
from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime
from typing import Optional

from ._options import Retry


def retry_delay(attempt: int, retry: Retry, retry_after: float = 0.0) -> float:
    """The wait in seconds before attempt `attempt + 1`, after `attempt` failed sends (1 or more).

    Full jitter (a uniform draw below the exponential cap) spreads a fleet's retries, so clients refused
    together do not return together; the service's `Retry-After` is a floor, since it knows when it
    expects to have room.
    """
    cap = min(retry.max_delay, retry.base_delay * float(2 ** min(attempt - 1, 52)))
    return float(max(random.random() * cap, retry_after))


def parse_retry_after(header: Optional[str]) -> Optional[float]:
    """`Retry-After` as seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if header is None:
        return None
    text = header.strip()
    if text.isdigit():
        return float(text)
    try:
        at = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - time.time())
