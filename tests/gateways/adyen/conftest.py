"""Adyen's fake (fake.py) and a hub whose Adyen adapter talks to it, for the tests here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from payhub import PayHub
from payhub.adapters.gateways.adyen.adapter import AdyenGateway
from payhub.adapters.system import FixedClock
from tests.conftest import START
from tests.gateways.adyen.fake import FakeAdyen


@pytest.fixture
def fake() -> FakeAdyen:
    return FakeAdyen()


@pytest.fixture
def hub(store_url: str, key_file: Path, fake: FakeAdyen) -> Iterator[PayHub]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as http:
        hub = PayHub.open(
            store_url,
            key_file=key_file,
            clock=FixedClock(START),
            gateways={"adyen": AdyenGateway(http)},
        )
        yield hub
        hub.close()
