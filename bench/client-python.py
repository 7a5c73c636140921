"""The Python client (clients/python) beside a plain httpx loop of 500-event batches with keys, in one run:

    npm run build && pip install ./clients/python && python bench/client-python.py

It starts the service as `npm start` does (`verdict serve`, all roles, `--max-semi-space-size=64`) with its
own redis-server on free ports, the account quotas lifted as the Node benches lift them (the default 5,000
events/s per account would cap both senders alike), and an account of its own. VERDICT_URL and
VERDICT_TOKEN point it at a running service instead (whose quotas must then allow the rate).

Both send the same keyed events over the same open outcomes from one Python process, the loop with as many
requests in flight as the client (8); each run waits until the service's workers have applied what the run
before it sent, rounds alternate the order so both see the same machine, and an unmeasured run of each
comes first. Prints, per run, events/s and
the sender's CPU per event, and at the end the medians, the client's share of the loop's rate and the load
average. PY_BENCH_EVENTS (default 100,000), PY_BENCH_OUTCOMES (default 10,000) and PY_BENCH_ROUNDS
(default 3) set the size.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from typing import Any, Callable, Dict, List

from pathlib import Path

import httpx

from verdict_client import VerdictClient
from verdict_client._uuid7 import uuid7

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clients" / "python" / "tests"))
from service import Service  # noqa: E402

#: Quotas no run reaches (bench/harness.ts BENCH_QUOTAS): the bench measures the senders, not a tenant's limits.
QUOTAS = {
    "VERDICT_QUOTA_EVENTS_PER_SECOND": "1000000000",
    "VERDICT_QUOTA_EVENT_BURST": "1000000000",
    "VERDICT_QUOTA_OPEN_OUTCOMES": "1000000000",
    "VERDICT_QUOTA_TASKS": "1000000",
}
URL = os.environ.get("VERDICT_URL", "")
TOKEN = os.environ.get("VERDICT_TOKEN", "")
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
    errors: List[str] = []
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
                # A plain loop stops at the first failed item: the run counts only when every event went in at once.
                if answer.status_code != 202 or answer.json()["failed"]:
                    errors.append(f"batch answered {answer.status_code}: {answer.text[:200]}")
                    return

    threads = [threading.Thread(target=worker) for _ in range(IN_FLIGHT)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"{errors[0]} (a quota too low for the rate?)")


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


def rounds(url: str, token: str) -> None:
    global URL, TOKEN
    URL, TOKEN = url, token
    senders: Dict[str, Callable[[List[Dict[str, Any]]], None]] = {"client": with_client, "plain httpx loop": plain_loop}
    rates: Dict[str, List[float]] = {name: [] for name in senders}
    cpu: Dict[str, List[float]] = {name: [] for name in senders}
    with VerdictClient(URL, TOKEN) as setup:
        setup.tasks.put("py-bench", {"name": "Python client bench", "condition": "never_sent"})
        for i in range(OUTCOMES):
            setup.outcomes.open({"key": f"py-bench-{i}", "task_key": "py-bench"})
    run = int(time.time())
    load_before = os.getloadavg()
    with httpx.Client(base_url=URL, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30) as http:
        # A run of each, unmeasured: the service's first runs are slower (its JIT warming), whoever sends them.
        for sender in senders.values():
            run += 1
            sender(events(run))
            drained(http, run)
        for round_ in range(ROUNDS):
            order = list(senders) if round_ % 2 == 0 else list(reversed(senders))
            for name in order:
                run += 1
                batch = events(run)
                started, cpu_started = time.perf_counter(), time.process_time()
                senders[name](batch)
                rate = EVENTS / (time.perf_counter() - started)
                rates[name].append(rate)
                cpu[name].append((time.process_time() - cpu_started) / EVENTS * 1e6)
                print(f"round {round_ + 1} {name}: {rate:,.0f} events/s, {cpu[name][-1]:.1f} µs CPU per event", file=sys.stderr)
                drained(http, run)
    client, plain = statistics.median(rates["client"]), statistics.median(rates["plain httpx loop"])
    summary = {
        "client_events_per_s": round(client),
        "plain_events_per_s": round(plain),
        "client_share": round(client / plain, 3),
        "client_cpu_us_per_event": round(statistics.median(cpu["client"]), 1),
        "plain_cpu_us_per_event": round(statistics.median(cpu["plain httpx loop"]), 1),
        "load_average_1m_before_after": [round(load_before[0], 1), round(os.getloadavg()[0], 1)],
        "cpus": os.cpu_count(),
    }
    print(json.dumps(summary))


def main() -> None:
    if URL:
        rounds(URL, TOKEN)
        return
    service = Service(env=QUOTAS, node_args=["--max-semi-space-size=64"])
    try:
        rounds(service.base_url, service.token)
    finally:
        service.stop()


if __name__ == "__main__":
    main()
