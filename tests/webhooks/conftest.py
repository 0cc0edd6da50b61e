"""Webhooks run on a real store, a real HTTP receiver on a free loopback port, the worker's
``run_once`` and a clock that moves only when told. Every delivery the receiver gets is
verified with the independent ``standardwebhooks`` package."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs
import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.environments import Environment
from payhub.domain.webhooks import EventRecord
from payhub.hub import ProviderScope
from payhub.services.webhooks import dispatch
from payhub.services.worker import Worker
from tests.messaging.conftest import FakeMailer


class WebhookAt(Webhook):
    """The oracle with its five-minute replay window around the test clock's time instead of
    the wall clock's; everything else (headers, signatures) is the package's own code."""

    def __init__(self, secret: str, now: datetime) -> None:
        super().__init__(secret)
        self._now = now

    def _Webhook__verify_timestamp(self, timestamp_header: str) -> datetime:
        stamp = datetime.fromtimestamp(float(timestamp_header), tz=UTC)
        if abs(stamp - self._now) > timedelta(minutes=5):
            raise WebhookVerificationError("Message timestamp out of tolerance")
        return stamp


@attrs.frozen
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int
    at: datetime  # the test clock's time when it arrived

    @property
    def event(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed

    def verify(self, secret: str, now: datetime) -> dict[str, Any]:
        """The body as the oracle returns it once it accepts the signature (raises if not)."""
        result: dict[str, Any] = WebhookAt(secret, now).verify(self.body, self.headers)
        return result


class Receiver:
    """A small HTTP server answering from a script of statuses (then 200), keeping every
    request it got."""

    def __init__(self, clock: FixedClock) -> None:
        self.clock = clock
        self.requests: list[Received] = []
        self.script: list[tuple[int, dict[str, str]]] = []
        self.failing_ids: dict[str, int] = {}  # webhook-id -> how many more 500s it gets
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                with receiver._lock:
                    status, extra = receiver.script.pop(0) if receiver.script else (200, {})
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    if receiver.failing_ids.get(headers.get("webhook-id", ""), 0) > 0:
                        receiver.failing_ids[headers["webhook-id"]] -= 1
                        status = 500
                    arrived = Received(self.path, headers, body, status, receiver.clock.now())
                    receiver.requests.append(arrived)
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def fail(self, times: int, status: int = 500, headers: dict[str, str] | None = None) -> None:
        self.script.extend([(status, headers or {})] * times)

    def at(self, path: str) -> list[Received]:
        return [r for r in self.requests if r.path == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(clock: FixedClock) -> Iterator[Receiver]:
    r = Receiver(clock)
    yield r
    r.close()


@pytest.fixture
def mailer() -> FakeMailer:
    return FakeMailer()


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, mailer: FakeMailer) -> Iterator[PayHub]:
    hub = PayHub.open(
        store_url, key_file=key_file, clock=clock, mailer=mailer, allow_loopback_webhooks=True
    )
    yield hub
    hub.close()


@pytest.fixture
def scope(hub: PayHub) -> ProviderScope:
    provider, _ = hub.operators.create_provider("Provider A", Environment.SANDBOX)
    return hub.provider(hub.as_provider(provider.id))


@pytest.fixture
def worker(hub: PayHub) -> Worker:
    return Worker(hub.deps, hub.job_handlers(), "test-worker")


class Events:
    """Records events the way the core would: inside a unit of work, dispatched at once."""

    def __init__(self, hub: PayHub) -> None:
        self.hub = hub
        self.n = 0

    def emit(
        self,
        provider_id: str,
        type: str = "invoice.paid",
        object_id: str = "inv_1",
        merchant_id: str | None = None,
        **data: Any,
    ) -> EventRecord:
        self.n += 1
        event = EventRecord(
            id=f"evt_{self.n:04d}",
            type=type,
            occurred_at=self.hub.deps.clock.now(),
            provider_id=provider_id,
            merchant_id=merchant_id,
            object_id=object_id,
            data={"id": object_id, "n": self.n, **data},
        )
        with self.hub.store.unit_of_work() as uow:
            dispatch(uow, self.hub.deps, event)
        return event


@pytest.fixture
def events(hub: PayHub) -> Events:
    return Events(hub)


def run_until_quiet(worker: Worker, clock: FixedClock, step: timedelta, passes: int) -> None:
    """``passes`` worker passes, moving the clock by ``step`` before each."""
    for _ in range(passes):
        clock.advance(step)
        worker.run_once()


SANDBOX = Environment.SANDBOX
