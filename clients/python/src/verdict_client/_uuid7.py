"""UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys minted later sort later.

The client mints one per event, so this is on its hottest path: the random bits come from a pool refilled
by one os.urandom call per 409 ids rather than a system call per id, and each sender owns a `Uuid7Source`
of its own, so its loop mints without a lock.
"""
from __future__ import annotations

import os
import threading
import time

_RANDOM_BYTES_PER_ID = 10
_POOL_BYTES = 4090


class Uuid7Source:
    """Mints UUID v7 text; not thread-safe (one per delivery loop; `uuid7()` is the locked shared one)."""

    __slots__ = ("_pool", "_at")

    def __init__(self) -> None:
        self._pool = b""
        self._at = _POOL_BYTES

    def __call__(self) -> str:
        at = self._at
        if at + _RANDOM_BYTES_PER_ID > len(self._pool):
            self._pool = os.urandom(_POOL_BYTES)
            at = 0
        self._at = at + _RANDOM_BYTES_PER_ID
        raw = bytearray((time.time_ns() // 1_000_000 & 0xFFFFFFFFFFFF).to_bytes(6, "big"))
        raw += self._pool[at : at + _RANDOM_BYTES_PER_ID]
        raw[6] = 0x70 | (raw[6] & 0x0F)  # version 7 over the first 4 random bits
        raw[8] = 0x80 | (raw[8] & 0x3F)  # the RFC 9562 variant over 2 more
        text = raw.hex()
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


_shared = Uuid7Source()
_lock = threading.Lock()


def uuid7() -> str:
    """A UUID v7 from a source shared by every thread."""
    with _lock:
        return _shared()
