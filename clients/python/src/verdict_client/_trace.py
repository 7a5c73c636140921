"""W3C `traceparent` from the caller's active OpenTelemetry span, so a fleet's trace continues into Verdict's.

`opentelemetry-api` is an optional dependency: without it the client sends no header.
"""
from __future__ import annotations

import importlib
from typing import Any, Optional


def _load(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:  # not installed: tracing is the caller's option, not a requirement
        return None


_trace: Any = _load("opentelemetry.trace")
_context: Any = _load("opentelemetry.context")


def active_traceparent() -> Optional[str]:
    """The active span's `traceparent`, or None when there is no valid active span."""
    if _trace is None or _context is None:
        return None
    current = _context.get_current()
    if not current:  # an empty context holds no span: the common case, a third of the full lookup
        return None
    context = _trace.get_current_span(current).get_span_context()
    if not context.is_valid:
        return None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags) & 0xFF:02x}"
