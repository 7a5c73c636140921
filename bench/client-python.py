"""The Python client (clients/python) beside a plain httpx loop of 500-event batches with keys, against a
running service (`npm start`; a token from `verdict account create bench`):

    VERDICT_URL=http://localhost:8080 VERDICT_TOKEN=... python bench/client-python.py

Both send the same keyed events over the same open outcomes from one Python process, the loop with as many
requests in flight as the client (8); each run waits until the service's workers have applied what the run
before it sent, and rounds alternate the order so both see the same machine. Prints events/s for each and
the client's rate as a share of the loop's. PY_BENCH_EVENTS (default 100,000), PY_BENCH_OUTCOMES (default
10,000) and PY_BENCH_ROUNDS (default 3) set the size; `pip install ./clients/python` first.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from typing import Any, Callable, Dict, List

import httpx

from verdict_client import VerdictClient
from verdict_client._uuid7 import uuid7

URL = os.environ.get("VERDICT_URL", "http://localhost:8080")
TOKEN = os.environ["VERDICT_TOKEN"]
EVENTS = int(os.environ.get("PY_BENCH_EVENTS", "100000"))
OUTCOMES = int(os.environ.get("PY_BENCH_OUTCOMES", "10000"))
ROUNDS = int(os.environ.get("PY_BENCH_ROUNDS", "3"))
IN_FLIGHT = 8
BATCH = 500


def events(run: int) -> List[Dict[str, Any]]:
    return [{"outcome_key": f"py-bench-{i % OUTCOMES}", "action": "step", "properties": {"run": run, "i": i}} for i in range(EVENTS)]


def with_client(batch: List[Dict[str, Any]]) -> None:
    with VerdictClient(URL, TOKEN) as client:
        futures = [client.track(event) for event in batch]  # type: ignore[arg-type]
        client.flush()
    failed = sum(1 for future in futures if future.exception() is not None)
    if failed:
        raise RuntimeError(f"{failed} events refused")


def plain_loop(batch: List[Dict[str, Any]]) -> None:
    chunks = [batch[i : i + BATCH] for i in range(0, len(batch), BATCH)]
    lock = threading.Lock()
    headers = {"authorization": f"Bearer {TOKEN}", "content-type": "application/json"}

    def worker() -> None:
        with httpx.Client(base_url=URL, timeout=30) as http:
            while True:
                with lock:
                    if not chunks:
                        return
                    chunk = chunks.pop(0)
                body = json.dumps({"events": [{**event, "idempotency_key": uuid7()} for event in chunk]}, separators=(",", ":"))
                answer = http.post("/v1/events/batch", content=body, headers=headers)
                if answer.status_code != 202 or answer.json()["failed"]:
                    raise RuntimeError(f"batch answered {answer.status_code}: {answer.text[:200]}")

    threads = [threading.Thread(target=worker) for _ in range(IN_FLIGHT)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def drained(http: httpx.Client, run: int) -> None:
    """Waits until the last outcome's log holds the run's last event, so no backlog carries into the next run."""
    last = f"py-bench-{(EVENTS - 1) % OUTCOMES}"
    for _ in range(600):
        page = http.get(f"/v1/outcomes/{last}/events", params={"limit": "1000"}).json()
        cursor = page["next_cursor"]
        logged = page["events"]
        while cursor is not None:
            page = http.get(f"/v1/outcomes/{last}/events", params={"limit": "1000", "cursor": cursor}).json()
            logged += page["events"]
            cursor = page["next_cursor"]
        if any(e["properties"].get("run") == run and e["properties"].get("i") == EVENTS - 1 for e in logged):
            return
        time.sleep(0.5)
    raise RuntimeError("the service did not apply the run's events within 5 minutes")


def main() -> None:
    senders: Dict[str, Callable[[List[Dict[str, Any]]], None]] = {"client": with_client, "plain httpx loop": plain_loop}
    rates: Dict[str, List[float]] = {name: [] for name in senders}
    with VerdictClient(URL, TOKEN) as setup:
        setup.tasks.put("py-bench", {"name": "Python client bench", "condition": "never_sent"})
        for i in range(OUTCOMES):
            setup.outcomes.open({"key": f"py-bench-{i}", "task_key": "py-bench"})
    run = int(time.time())
    with httpx.Client(base_url=URL, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30) as http:
        for round_ in range(ROUNDS):
            order = list(senders) if round_ % 2 == 0 else list(reversed(senders))
            for name in order:
                run += 1
                batch = events(run)
                started = time.perf_counter()
                senders[name](batch)
                rate = EVENTS / (time.perf_counter() - started)
                rates[name].append(rate)
                print(f"round {round_ + 1} {name}: {rate:,.0f} events/s", file=sys.stderr)
                drained(http, run)
    client, plain = statistics.median(rates["client"]), statistics.median(rates["plain httpx loop"])
    print(json.dumps({"client_events_per_s": round(client), "plain_events_per_s": round(plain), "client_share": round(client / plain, 3)}))


if __name__ == "__main__":
    main()
