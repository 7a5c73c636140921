"""Events to JSON text as `json.dumps(event, separators=(",", ":"), allow_nan=False)` writes them, faster.

`json.dumps` with any option builds a new encoder per call, which costs as much as encoding a small event;
the client encodes each event once, at admission, so it keeps one C encoder per sender instead.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Optional

#: None on an interpreter without the C accelerator: json.dumps does the same there, slower.
_c_make_encoder: Optional[Callable[..., Any]] = getattr(json.encoder, "c_make_encoder", None)


def _unserialisable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def _c_encoder() -> Optional[Callable[[Any, int], Any]]:
    if _c_make_encoder is None:
        return None
    try:
        # The arguments json.JSONEncoder.iterencode passes: markers (cycle check), default, string
        # encoder, indent, key and item separators, sort_keys, skipkeys, allow_nan.
        encode: Callable[[Any, int], Any] = _c_make_encoder(
            {}, _unserialisable, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, False
        )
        if "".join(encode({"a": [1, 2.5, None, "é"]}, 0)) != _dumps({"a": [1, 2.5, None, "é"]}):
            return None
        return encode
    except Exception:  # an interpreter whose encoder takes other arguments: json.dumps it is
        return None


class JsonEncoder:
    """Compact, ASCII-only JSON text; raises TypeError or ValueError (NaN, a cycle) like json.dumps."""

    __slots__ = ("_encode",)

    def __init__(self) -> None:
        self._encode = _c_encoder()

    def __call__(self, value: Any) -> str:
        encode = self._encode
        if encode is None:
            return _dumps(value)
        try:
            return "".join(encode(value, 0))
        except (TypeError, ValueError, RecursionError):
            # A failed encoding may leave its objects in the cycle check's memo: start afresh.
            self._encode = _c_encoder()
            raise
