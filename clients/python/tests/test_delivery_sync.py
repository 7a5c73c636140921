"""The sync client's delivery against the real service through a fault-injecting proxy: every event applied
once, in `track` order per outcome, whatever the network answers."""
from __future__ import annotations

import concurrent.futures
import threading
from typing import Dict, Iterator, List

import pytest

from conftest import EVENTS, OUTCOMES, log_of, open_outcomes, put_task
from fault_proxy import FaultProxy
from service import Service
from verdict_client import Retry, VerdictClient, VerdictError

TIMEOUT = 1.5
RETRY = Retry(max_attempts=30, base_delay=0.02, max_delay=0.5)


@pytest.fixture
def proxy(service: Service) -> Iterator[FaultProxy]:
    started = FaultProxy(service.base_url, refuse=0.10, drop=0.10, delay=0.05, delay_seconds=TIMEOUT + 0.5)
    yield started
    started.close()


def check_logs(service: Service, tracked: Dict[str, List[int]]) -> None:
    for key, seqs in tracked.items():
        events = log_of(service, key, len(seqs))
        assert [e["properties"]["seq"] for e in events] == seqs, f"{key}'s log"
        assert len({e["idempotency_key"] for e in events}) == len(seqs)


def test_events_from_4_threads_are_applied_once_each_in_track_order_through_faults(service: Service, proxy: FaultProxy) -> None:
    outcomes = open_outcomes(service, put_task(service), OUTCOMES)
    tracked: Dict[str, List[int]] = {key: [] for key in outcomes}
    futures: List["concurrent.futures.Future[None]"] = []
    lock = threading.Lock()
    per_thread = EVENTS // 4

    with VerdictClient(proxy.base_url, service.token, timeout=TIMEOUT, retry=RETRY) as client:

        def run(thread: int) -> None:
            # Each thread owns a quarter of the outcomes, so `track` order per outcome is the thread's order.
            mine = outcomes[thread::4]
            for i in range(per_thread):
                key = mine[i % len(mine)]
                future = client.track({"outcome_key": key, "action": "step", "properties": {"seq": i}})
                with lock:
                    tracked[key].append(i)
                    futures.append(future)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client.flush()
        for future in futures:
            assert future.result(0) is None
    assert proxy.counts["refuse"] > 0 and proxy.counts["drop"] > 0 and proxy.counts["delay"] > 0
    check_logs(service, tracked)


def test_a_rejected_event_raises_only_for_itself(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    with VerdictClient(service.base_url, service.token) as client:
        futures = []
        for i in range(20):
            action = "" if i % 7 == 3 else "step"  # an empty action is a VALIDATION_ERROR
            futures.append(client.track({"outcome_key": key, "action": action, "properties": {"seq": i}}))
        client.flush()
    for i, future in enumerate(futures):
        if i % 7 == 3:
            error = future.exception(0)
            assert isinstance(error, VerdictError) and error.status == 400 and error.code == "VALIDATION_ERROR"
            assert error.details and str(error.details[0]["path"]).endswith(".action")
        else:
            assert future.result(0) is None
    valid = [i for i in range(20) if i % 7 != 3]
    assert [e["properties"]["seq"] for e in log_of(service, key, len(valid))] == valid


def test_a_full_buffer_blocks_track_until_events_settle(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    proxy.set_rates()
    proxy.hold()
    with VerdictClient(proxy.base_url, service.token, max_buffered_events=5, flush_interval=0) as client:
        for i in range(5):
            client.track({"outcome_key": key, "action": "step", "properties": {"seq": i}})
        returned = threading.Event()

        def sixth() -> None:
            client.track({"outcome_key": key, "action": "step", "properties": {"seq": 5}})
            returned.set()

        thread = threading.Thread(target=sixth)
        thread.start()
        assert not returned.wait(0.5), "track returned while the buffer was full"
        stats = client.stats()
        assert (stats.buffered, stats.waiting, stats.in_flight) == (5, 1, 1)
        proxy.release()
        thread.join(30)
        assert returned.is_set()
        client.flush()
    assert [e["properties"]["seq"] for e in log_of(service, key, 6)] == list(range(6))


def test_close_refuses_new_events(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    client = VerdictClient(service.base_url, service.token)
    accepted = client.track({"outcome_key": key, "action": "step", "properties": {"seq": 0}})
    client.close()
    assert accepted.result(0) is None  # close flushed it
    error = client.track({"outcome_key": key, "action": "step", "properties": {"seq": 1}}).exception(0)
    assert isinstance(error, VerdictError) and error.code == "CLIENT_CLOSED"


def test_retries_running_out_raise_with_the_last_error(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    proxy.set_rates(refuse=1.0)
    with VerdictClient(proxy.base_url, service.token, retry=Retry(max_attempts=3, base_delay=0.001, max_delay=0.01)) as client:
        error = client.track({"outcome_key": key, "action": "step"}).exception(30)
    assert isinstance(error, VerdictError) and error.status == 503 and error.code == "QUEUE_REJECTED"
    assert proxy.counts["refuse"] == 3


@pytest.mark.parametrize("failure", ["unconfirmed", "quota"])
def test_failed_batch_items_go_again_in_order_until_accepted(service: Service, proxy: FaultProxy, failure: str) -> None:
    keys = open_outcomes(service, put_task(service), 3)
    proxy.set_rates()
    proxy.fail_items = failure
    with VerdictClient(proxy.base_url, service.token, retry=RETRY, flush_interval=0) as client:
        futures = [client.track({"outcome_key": keys[i % 3], "action": "step", "properties": {"seq": i}}) for i in range(30)]
        for _ in range(1200):  # until two batch answers were rewritten (a minute at most)
            if proxy.counts.get(failure, 0) >= 2:
                break
            threading.Event().wait(0.05)
        proxy.fail_items = None
        client.flush()
    assert all(future.result(0) is None for future in futures)
    for n, key in enumerate(keys):
        assert [e["properties"]["seq"] for e in log_of(service, key, 10)] == list(range(n, 30, 3))


def test_items_refused_for_the_rate_never_use_up_attempts(service: Service, proxy: FaultProxy) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    proxy.set_rates()
    proxy.fail_items = "quota"
    with VerdictClient(proxy.base_url, service.token, retry=Retry(max_attempts=2, base_delay=0.001, max_delay=0.01)) as client:
        future = client.track({"outcome_key": key, "action": "step"})
        for _ in range(1200):  # more refusals than max_attempts allows, then the rate has room again
            if proxy.counts.get("quota", 0) >= 4:
                break
            threading.Event().wait(0.05)
        proxy.fail_items = None
        assert future.result(30) is None
    # A second copy would be applied with the first: a few seconds for it to show is enough.
    assert len(log_of(service, key, 2, seconds=3)) == 1
