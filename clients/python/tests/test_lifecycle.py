"""The sync client at interpreter exit and in a forked child, the background's failures surfacing on the next call, and the example."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest

from conftest import log_of, open_outcomes, put_task
from service import Service
from verdict_client import AsyncVerdictClient, VerdictClient, VerdictError

EXIT_SCRIPT = """
import sys
from verdict_client import VerdictClient
client = VerdictClient(sys.argv[1], sys.argv[2], timeout=1.0, flush_interval=5)
for i in range(50):
    client.track({"outcome_key": sys.argv[3], "action": "step", "properties": {"seq": i}})
"""


def test_the_sync_client_flushes_at_interpreter_exit(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    # flush_interval=5: without the exit flush the partial batch would still be waiting when the process ends.
    subprocess.run([sys.executable, "-c", EXIT_SCRIPT, service.base_url, service.token, key], check=True, timeout=120)
    assert [e["properties"]["seq"] for e in log_of(service, key, 50)] == list(range(50))


def test_an_unreachable_service_does_not_hang_the_exit() -> None:
    # Bound and never listening: connections are refused, and no other process can take the port meanwhile.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        unreachable = f"http://127.0.0.1:{held.getsockname()[1]}"
        done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT, unreachable, "token", "ticket:1"], timeout=120, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "events not delivered at exit" in done.stderr


FORK_SCRIPT = """
import os, sys
from verdict_client import VerdictClient, VerdictError
client = VerdictClient("http://127.0.0.1:9", "token")
pid = os.fork()
if pid == 0:
    try:
        client.track({"outcome_key": "o", "action": "step"})
        sys.exit(3)
    except VerdictError as error:
        if error.code != "CLIENT_FAILED":
            sys.exit(4)
    later = client.track({"outcome_key": "o", "action": "step"}).exception(0)
    sys.exit(0 if isinstance(later, VerdictError) and later.code == "CLIENT_CLOSED" else 5)  # the exit flush has nothing to wait for
_, status = os.waitpid(pid, 0)
client.close(1)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_raises_instead_of_queueing_for_a_thread_it_does_not_have() -> None:
    # Well within the client's 10 s timeout: the child's exit does not wait for a flush nothing would send.
    done = subprocess.run([sys.executable, "-c", FORK_SCRIPT], timeout=8, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def broken(*args: Any) -> NoReturn:
    raise RuntimeError("a bug in the answer's handling")


def test_a_background_failure_fails_its_events_and_raises_on_the_next_call(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    with VerdictClient(service.base_url, service.token) as client:
        client._sender._answered = broken  # type: ignore[method-assign]
        error = client.track({"outcome_key": key, "action": "step"}).exception(30)
        assert isinstance(error, VerdictError) and error.code == "CLIENT_FAILED"
        with pytest.raises(VerdictError) as surfaced:
            client.track({"outcome_key": key, "action": "step"})
        assert surfaced.value.code == "CLIENT_FAILED" and isinstance(surfaced.value.__cause__, RuntimeError)
        del client._sender._answered  # the instance's patch gone, delivery works again
        assert client.track({"outcome_key": key, "action": "step"}).result(30) is None


async def test_a_background_failure_surfaces_in_asyncio_too(service: Service) -> None:
    [key] = open_outcomes(service, put_task(service), 1)
    async with AsyncVerdictClient(service.base_url, service.token) as client:
        await client.track({"outcome_key": key, "action": "step"})
        assert client._sender is not None
        client._sender._answered = broken  # type: ignore[method-assign]
        with pytest.raises(VerdictError) as failed:
            await client.track({"outcome_key": key, "action": "step"})
        assert failed.value.code == "CLIENT_FAILED"
        with pytest.raises(VerdictError) as surfaced:
            await client.flush()
        assert surfaced.value.code == "CLIENT_FAILED"
        del client._sender._answered


def test_the_agent_loop_example_runs(service: Service) -> None:
    token = service.create_account("example")
    example = Path(__file__).parents[1] / "examples" / "agent_loop.py"
    env = {**os.environ, "VERDICT_URL": service.base_url, "VERDICT_TOKEN": token}
    done = subprocess.run([sys.executable, str(example)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(line.split()[0] for line in done.stdout.splitlines()) == sorted(f"ticket:{n}" for n in range(10))
