"""UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys minted later sort later.

The client mints one per event, so this is on its hottest path: the random part of 512 ids is drawn by one
os.urandom call and formatted in one pass, the time part is formatted once per millisecond, and each sender
owns a `Uuid7Source` of its own, so its loop mints without a lock.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Dict, List

_IDS_PER_DRAW = 512
#: Random hex digits per id: 3 after the version digit, 1 whose low 2 bits follow the variant, 3, then 12.
_HEX_PER_ID = 20
#: A random hex digit to the variant digit (`10` in the top 2 bits) that keeps its low 2 bits.
_VARIANT_DIGIT: Dict[str, str] = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def _random_parts() -> List[str]:
    """The text after the version digit of `_IDS_PER_DRAW` ids: `xxx-Vxxx-xxxxxxxxxxxx`."""
    text = os.urandom(_IDS_PER_DRAW * _HEX_PER_ID // 2).hex()
    variant = _VARIANT_DIGIT
    return [
        f"{text[at : at + 3]}-{variant[text[at + 3]]}{text[at + 4 : at + 7]}-{text[at + 7 : at + 19]}"
        for at in range(0, len(text), _HEX_PER_ID)
    ]


class Uuid7Source:
    """Mints UUID v7 text; not thread-safe (one per delivery loop; `uuid7()` is the locked shared one)."""

    __slots__ = ("_parts", "_ms", "_head")

    def __init__(self) -> None:
        self._parts: List[str] = []
        self._ms = -1
        #: `tttttttt-tttt-7` for the millisecond `_ms`.
        self._head = ""

    def __call__(self) -> str:
        ms = time.time_ns() // 1_000_000
        if ms != self._ms:
            self._ms = ms
            stamp = f"{ms & 0xFFFFFFFFFFFF:012x}"
            self._head = f"{stamp[:8]}-{stamp[8:]}-7"
        parts = self._parts
        if not parts:
            parts = self._parts = _random_parts()
        return self._head + parts.pop()


_shared = Uuid7Source()
_lock = threading.Lock()


def uuid7() -> str:
    """A UUID v7 from a source shared by every thread."""
    with _lock:
        return _shared()
