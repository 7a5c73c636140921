"""A fault-injecting HTTP proxy in front of the service: for batch requests it answers 503 without
forwarding, forwards and drops the answer (the connection closes unanswered), or forwards only after the
client's timeout, at the rates given; `hold()` parks every batch request until `release()`."""
from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple

import httpx

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class FaultProxy:
    def __init__(self, upstream: str, *, refuse: float = 0.0, drop: float = 0.0, delay: float = 0.0, delay_seconds: float = 0.0, seed: int = 7) -> None:
        self.upstream = httpx.Client(base_url=upstream, timeout=30)
        self.rates = (refuse, drop, delay)
        self.delay_seconds = delay_seconds
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        #: (path, traceparent header or None) of every request, in arrival order.
        self.traceparents: List[Tuple[str, Optional[str]]] = []
        self.counts: Dict[str, int] = {"refuse": 0, "drop": 0, "delay": 0, "forward": 0}
        #: Each fault strikes at least once: the first batch requests are refused, dropped and delayed.
        self.script = ["refuse", "drop", "delay"] if refuse and drop and delay else []
        #: Batch answers rewritten with every item in `failed`: "unconfirmed" (forwarded first) or "quota"
        #: (not forwarded; refused for the account's event rate).
        self.fail_items: Optional[str] = None
        #: When set, `fail_items` lasts for this many batch answers, then switches itself off.
        self.fail_items_times: Optional[int] = None
        self.gate = threading.Event()
        self.gate.set()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                proxy.handle(self)

            do_POST = do_PUT = do_DELETE = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def set_rates(self, *, refuse: float = 0.0, drop: float = 0.0, delay: float = 0.0) -> None:
        self.rates = (refuse, drop, delay)
        self.script = []

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def fault(self) -> str:
        refuse, drop, delay = self.rates
        with self.lock:
            draw = self.random.random()
            if self.script:
                kind = self.script.pop(0)
                self.counts[kind] += 1
                return kind
            kind = "refuse" if draw < refuse else "drop" if draw < refuse + drop else "delay" if draw < refuse + drop + delay else "forward"
            self.counts[kind] += 1
        return kind

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("content-length") or 0)
        body = request.rfile.read(length) if length else b""
        with self.lock:
            self.traceparents.append((request.path, request.headers.get("traceparent")))
        kind = "forward"
        if request.path.startswith("/v1/events/batch"):
            self.gate.wait()
            kind = self.fault()
        if kind == "forward" and self.fail_items is not None and request.path.startswith("/v1/events/batch"):
            self.answer_failed_items(request, body)
            return
        if kind == "refuse":
            payload = b'{"error":{"code":"QUEUE_REJECTED","message":"injected by the fault proxy","request_id":"proxy"}}'
            self.answer(request, 503, {"content-type": "application/json", "retry-after": "0"}, payload)
            return
        if kind == "delay":
            time.sleep(self.delay_seconds)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        try:
            response = self.upstream.request(request.command, request.path, content=body, headers=headers)
        except httpx.HTTPError:
            request.close_connection = True
            return
        if kind == "drop":
            # Forwarded and applied, but the client never hears of it.
            request.close_connection = True
            return
        answer_headers = {k: v for k, v in response.headers.items() if k.lower() not in HOP_HEADERS | {"content-encoding"}}
        self.answer(request, response.status_code, answer_headers, response.content)

    def answer_failed_items(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        count = len(json.loads(body)["events"])
        if self.fail_items == "unconfirmed":
            self.upstream.post(request.path, content=body, headers={"authorization": request.headers["authorization"], "content-type": "application/json"})
            failed = [{"index": i, "reason": "unconfirmed"} for i in range(count)]
        else:
            failed = [{"index": i, "reason": "rate_limited"} for i in range(count)]
        with self.lock:
            self.counts[self.fail_items] = self.counts.get(self.fail_items, 0) + 1
            if self.fail_items_times is not None:
                self.fail_items_times -= 1
                if self.fail_items_times <= 0:
                    self.fail_items = self.fail_items_times = None
        payload = json.dumps({"accepted": 0, "failed": failed, "duplicates": []}).encode()
        self.answer(request, 202, {"content-type": "application/json", "retry-after": "0"}, payload)

    @staticmethod
    def answer(request: BaseHTTPRequestHandler, status: int, headers: Dict[str, str], payload: bytes) -> None:
        try:
            request.send_response(status)
            for name, value in headers.items():
                request.send_header(name, value)
            request.send_header("content-length", str(len(payload)))
            request.end_headers()
            request.wfile.write(payload)
        except OSError:
            request.close_connection = True  # the client gave up (its timeout) and closed

    def close(self, timeout: Optional[float] = None) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()
        self.upstream.close()
