"""Payments run against the real simulator adapter, wrapped so tests can count gateway calls."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.system import FixedClock
from tests.conftest import Account


class CountingGateway:
    """The simulator, with a tally of every call the service made to it."""

    def __init__(self, inner: SimulatorGateway) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: Counter[str] = Counter()

    def __getattr__(self, op: str) -> Any:
        target = getattr(self.inner, op)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[op] += 1
            return target(*args, **kwargs)

        return counted


@pytest.fixture
def gateway() -> CountingGateway:
    return CountingGateway(SimulatorGateway())


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, gateway: CountingGateway
) -> Iterator[PayHub]:
    hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways={"simulator": gateway})
    yield hub
    hub.close()


@pytest.fixture
def shop(
    client: TestClient[Litestar],
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> dict[str, str]:
    """A merchant with simulator credentials; returns the headers a payment call needs."""
    make_merchant(sandbox_provider, "shop-1")
    response = client.put(
        "/api/merchant-accounts/shop-1/credentials/simulator",
        json={"apiSecret": "sim-secret", "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    assert response.status_code == 200, response.text
    return {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}


def charge_body(value: Any = "25.00", token: str = "sim_card_ok", **extra: Any) -> dict[str, Any]:
    return {
        "amount": {"value": value, "currency": "USD"},
        "gatewayName": "simulator",
        "paymentMethodToken": token,
        **extra,
    }
