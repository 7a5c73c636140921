"""The client's idempotency keys are UUID v7: version 7, the RFC 9562 variant, the time in front, unique."""
from __future__ import annotations

import time
import uuid

from verdict_client._uuid7 import uuid7


def test_keys_are_unique_uuid_v7_with_the_current_time_in_front() -> None:
    before = time.time_ns() // 1_000_000
    keys = [uuid7() for _ in range(10_000)]
    after = time.time_ns() // 1_000_000
    assert len(set(keys)) == len(keys)
    for key in keys[:: 997]:
        parsed = uuid.UUID(key)
        assert str(parsed) == key and parsed.version == 7 and parsed.variant == uuid.RFC_4122
        assert before <= parsed.int >> 80 <= after
