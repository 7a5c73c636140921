"""UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys minted later sort later.

The client mints one per event, so this is on its hottest path: the random bits come from a pool refilled
by one os.urandom call per 409 ids rather than a system call per id.
"""
from __future__ import annotations

import os
import threading
import time

_RANDOM_BYTES_PER_ID = 10
_POOL_BYTES = 4090
_lock = threading.Lock()
_pool = b""
_at = _POOL_BYTES


def uuid7() -> str:
    global _pool, _at
    with _lock:
        if _at + _RANDOM_BYTES_PER_ID > len(_pool):
            _pool = os.urandom(_POOL_BYTES)
            _at = 0
        rand = int.from_bytes(_pool[_at : _at + _RANDOM_BYTES_PER_ID], "big")
        _at += _RANDOM_BYTES_PER_ID
    ms = time.time_ns() // 1_000_000
    rand_a = rand >> 68  # 12 bits
    rand_b = rand & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
