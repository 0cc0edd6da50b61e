"""Adyen's fake (fake.py) and a hub whose Adyen adapter talks to it, for the tests here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from payhub import PayHub
from payhub.adapters.gateways.adyen.adapter import AdyenGateway
from payhub.adapters.system import FixedClock
from tests.conftest import START
from tests.gateways.adyen.fake import FakeAdyen
from tests.gateways.support import hub_on


@pytest.fixture
def fake() -> FakeAdyen:
    return FakeAdyen()


@pytest.fixture
def hub(store_url: str, key_file: Path, fake: FakeAdyen) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, FixedClock(START), fake.handler, {"adyen": AdyenGateway})
