"""A hub wired to the fake QuickBooks Online, on SQLite and PostgreSQL, with the worker's
``run_once`` and a clock that moves only when told (no test waits for real time)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import attrs
import httpx
import pytest

from payhub import PayHub
from payhub.adapters.accounting.qbo import QuickBooksOnline
from payhub.adapters.system import FixedClock
from payhub.hub import MerchantScope
from payhub.services.worker import Pass, Worker
from tests.integrations.fakes.qbo import FakeQuickBooks
from tests.invoices.conftest import customer, shop  # noqa: F401 (the invoice tests' fixtures)
from tests.portal.conftest import browse  # noqa: F401 (the portal tests' fixture)

REALM = "9341453050071"


@pytest.fixture
def qbo(clock: FixedClock) -> FakeQuickBooks:
    fake = FakeQuickBooks(clock.now)
    fake.add_company(REALM, "Acme Books LLC")
    return fake


@attrs.define
class Sleeps:
    """The adapter's waits, recorded instead of slept."""

    waits: list[float] = attrs.field(factory=list)

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, qbo: FakeQuickBooks, sleeps: Sleeps
) -> Iterator[PayHub]:
    adapter = QuickBooksOnline(
        qbo.config(), httpx.Client(transport=qbo.transport()), sleep=sleeps, now=clock.now
    )
    hub = PayHub.open(store_url, key_file=key_file, clock=clock, accounting=adapter)
    yield hub
    hub.close()


def work(hub: PayHub) -> Pass:
    """One worker pass: every due job, the accounting queue's included."""
    return Worker(hub.deps, hub.job_handlers(), "test-worker").run_once()


def callback_params(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def connect(scope: MerchantScope, qbo: FakeQuickBooks, realm: str = REALM) -> Any:
    """The portal's flow, in process: Intuit's sign-in, then the callback."""
    url = scope.accounting_online.begin_connect()
    back = callback_params(qbo.sign_in(url, realm))
    return scope.accounting_online.finish_connect(back["state"], back["code"], back["realmId"])
