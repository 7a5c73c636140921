"""The hot path's own parts: the kept JSON encoder writes what json.dumps writes (and refuses what it refuses),
and the futures that share a condition behave as stock ones for waits, timeouts, callbacks and cancelling."""
from __future__ import annotations

import concurrent.futures
import json
import threading
from typing import Any, Dict, List

import pytest

from verdict_client._future import TrackFuture, new_condition
from verdict_client._json import JsonEncoder

VALUES: List[Any] = [
    {"outcome_key": "o:1", "action": "step", "properties": {"value": 2.5, "tags": ["x", None, True], "é": "\u2028\"\\"}},
    {},
    [],
    {"n": [1, -0.0, 1e300, 12345678901234567890]},
    {1: "int key", 2.5: "float key", True: "bool key", None: "null key"},
]


@pytest.mark.parametrize("value", VALUES)
def test_the_encoder_writes_what_json_dumps_writes(value: Any) -> None:
    assert JsonEncoder()(value) == json.dumps(value, separators=(",", ":"), allow_nan=False)


def test_the_encoder_refuses_what_json_dumps_refuses_and_goes_on() -> None:
    encode = JsonEncoder()
    cycle: Dict[str, Any] = {}
    cycle["self"] = cycle
    for bad, error in (({"x": float("nan")}, ValueError), ({"x": {1, 2}}, TypeError), (cycle, ValueError)):
        with pytest.raises(error):
            encode(bad)
    assert encode({"after": [1]}) == '{"after":[1]}'


def test_futures_sharing_a_condition_wait_time_out_and_complete_like_stock_ones() -> None:
    condition = new_condition()
    futures = [TrackFuture(condition) for _ in range(3)]
    called: List[bool] = []
    futures[2].add_done_callback(lambda f: called.append(f.done()))
    with pytest.raises(concurrent.futures.TimeoutError):
        futures[2].result(0.01)

    def settle() -> None:
        futures[0].set_result(None)  # wakes every waiter on the shared condition, futures[2]'s too
        threading.Event().wait(0.1)
        futures[1].set_exception(ValueError("refused"))
        futures[2].set_result(None)

    threading.Thread(target=settle).start()
    assert futures[2].result(5) is None and called == [True]
    assert isinstance(futures[1].exception(5), ValueError)
    done, pending = concurrent.futures.wait(futures, timeout=5)
    assert len(done) == 3 and not pending
    assert list(concurrent.futures.as_completed(futures, timeout=5)) != []
    cancelled = TrackFuture(condition)
    assert cancelled.cancel() and cancelled.done()
    with pytest.raises(concurrent.futures.CancelledError):
        cancelled.result()
