"""The real service for the tests: a redis-server and `verdict serve` (the built CLI) on free ports, and an
account made with `verdict account create`. VERDICT_REPO names the repository (default: three levels up)."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

import httpx

REPO = Path(os.environ.get("VERDICT_REPO", Path(__file__).resolve().parents[3]))
CLI = REPO / "dist" / "src" / "cli" / "main.js"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(check: "callable[[], bool]", seconds: float, what: str) -> None:  # type: ignore[valid-type]
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not within {seconds} s")
        time.sleep(0.1)


class Service:
    """`env` adds to (or overrides) the service's environment; `node_args` go before the CLI (as `npm start`'s)."""

    def __init__(self, env: Optional[Dict[str, str]] = None, node_args: Optional[List[str]] = None) -> None:
        if not CLI.exists():
            raise RuntimeError(f"{CLI} is missing: run `npm run build` first")
        self.dir = tempfile.mkdtemp(prefix="verdict-py-")
        self.processes: List[subprocess.Popen[bytes]] = []
        redis_port = free_port()
        self._spawn(["redis-server", "--port", str(redis_port), "--save", "", "--appendonly", "no", "--dir", self.dir])
        wait_until(lambda: _answers(redis_port), 20, "redis-server")
        self.port = free_port()
        self.metrics_port = free_port()
        self.env: Dict[str, str] = {
            **os.environ,
            "REDIS_URL": f"redis://127.0.0.1:{redis_port}",
            "REDIS_CLUSTER_NODES": "",
            "VERDICT_PORT": str(self.port),
            "VERDICT_METRICS_PORT": str(self.metrics_port),
            "VERDICT_TOKEN_SECRET": secrets.token_urlsafe(32),
            "VERDICT_DATA_DIR": self.dir,
            "VERDICT_LOG_LEVEL": "warn",
            **(env or {}),
        }
        self._spawn(["node", *(node_args or []), str(CLI), "serve"], env=self.env)
        wait_until(self._ready, 60, "verdict serve /readyz")
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.token = self.create_account("python-client")

    def create_account(self, name: str) -> str:
        out = subprocess.run(["node", str(CLI), "account", "create", name], env=self.env, check=True, capture_output=True, timeout=60)
        token: str = json.loads(out.stdout)["token"]
        return token

    def _spawn(self, command: List[str], env: Optional[Dict[str, str]] = None) -> None:
        self.processes.append(subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=None))

    def _ready(self) -> bool:
        for process in self.processes:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        try:
            return httpx.get(f"http://127.0.0.1:{self.metrics_port}/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
