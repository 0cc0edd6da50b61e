"""Webhook events dispatched per second end to end on PostgreSQL: events recorded and queued
for an endpoint (as the webhooks reaction does), then delivered by 1 or 4 worker processes to
a real HTTP receiver on a loopback port, signed, each POST answered 200.

Counts what must be 0: events received twice, events never received, and events of one
object received out of order. The receiver runs in this process (threads); workers are
separate processes, so the measure includes signing, the POST and both transactions.
"""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import threading
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from payhub import Environment, PayHub
from payhub.domain.webhooks import EventRecord
from payhub.services.webhooks import EndpointInput, dispatch
from payhub.services.worker import Worker

EVENTS_PER_OBJECT = 5
SEED_BATCH = 200


class _Receiver:
    def __init__(self) -> None:
        self.ids: list[tuple[str, int]] = []  # (object id, event number) in arrival order
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real receivers do

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                data = json.loads(body)["data"]
                with receiver.lock:
                    receiver.ids.append((data["id"], data["n"]))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def _seed(url: str, key_file: Path, hook_url: str, count: int) -> None:
    hub = PayHub.open(url, key_file=key_file, allow_loopback_webhooks=True)
    try:
        provider, _ = hub.operators.create_provider("Bench", Environment.SANDBOX)
        scope = hub.provider(hub.as_provider(provider.id))
        scope.webhooks.create(EndpointInput(url=hook_url, event_types=["*"]))
        for start in range(0, count, SEED_BATCH):
            with hub.store.unit_of_work() as uow:
                for n in range(start, min(count, start + SEED_BATCH)):
                    obj = f"inv_{n // EVENTS_PER_OBJECT}"
                    event = EventRecord(
                        id=f"evt_{n:08d}",
                        type="invoice.paid",
                        occurred_at=datetime.now(UTC),
                        provider_id=provider.id,
                        merchant_id=None,
                        object_id=obj,
                        data={"id": obj, "n": n, "amountPaid": {"value": 10, "currency": "USD"}},
                    )
                    dispatch(uow, hub.deps, event)
    finally:
        hub.close()


def _worker(url: str, key_file: str, owner: str, ready: Any, start: Any, out: Any) -> None:
    hub = PayHub.open(url, key_file=key_file, migrate=False, allow_loopback_webhooks=True)
    try:
        worker = Worker(hub.deps, hub.job_handlers(), owner)
        with hub.store.unit_of_work(readonly=True) as uow:  # connected before the clock starts
            uow.providers.count()
        ready.put(owner)
        start.wait()
        idle = 0
        while idle < 3:  # a chain's next delivery may be released by another worker
            if worker.run_once().jobs:
                idle = 0
            else:
                idle += 1
                time.sleep(0.05)
    finally:
        hub.close()
    out.put(owner)


def run(url: str, count: int, workers: int) -> dict[str, float]:
    receiver = _Receiver()
    key_file = Path(tempfile.mkdtemp()) / "payhub.key"
    _seed(url, key_file, receiver.url, count)
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    ready: Any = ctx.Queue()
    out: Any = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(url, str(key_file), f"w{n}", ready, start, out))
        for n in range(workers)
    ]
    for p in procs:
        p.start()
    for _ in procs:  # every process imported, opened and connected: then the clock starts
        ready.get(timeout=300)
    began = time.perf_counter()
    start.set()
    for _ in procs:
        out.get(timeout=600)
    elapsed = time.perf_counter() - began
    for p in procs:
        p.join()
    receiver.server.shutdown()
    seen = Counter(n for _, n in receiver.ids)
    by_object: dict[str, list[int]] = defaultdict(list)
    for obj, n in receiver.ids:
        by_object[obj].append(n)
    return {
        "events_per_s": len(seen) / elapsed,
        "seconds": elapsed,
        "received": float(len(receiver.ids)),
        "twice": float(sum(c - 1 for c in seen.values())),
        "missing": float(count - len(seen)),
        "out_of_order": float(sum(ns != sorted(ns) for ns in by_object.values())),
    }
