"""A merchant with simulator credentials, a customer and saved cards, driven by a FixedClock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.services.worker import Pass, Worker
from tests.conftest import Account
from tests.customers.support import Client, Shop

OWNER_REF = "acme"


@pytest.fixture
def shop(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> Shop:
    make_merchant(sandbox_provider, OWNER_REF)
    shop = Shop(client, hub, sandbox_provider, OWNER_REF)
    shop.ok(shop.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    return shop


@pytest.fixture
def customer(shop: Shop) -> dict[str, Any]:
    return shop.created(
        "/customers",
        {
            "name": {"first": "Ada", "last": "Lovelace"},
            "phone": "+1 415 555 2671",
            "billingAddress": {"line1": "1 Analytical Way", "city": "London"},
        },
    )


@pytest.fixture
def save_card(shop: Shop, customer: dict[str, Any]) -> Callable[..., str]:
    def save(token: str = "sim_card_ok", customer_id: str | None = None) -> str:
        cid = customer_id or customer["customerId"]
        body = shop.created(
            f"/customers/{cid}/payment-methods/simulator", {"paymentMethodToken": token}
        )
        return str(body["paymentMethodId"])

    return save


@pytest.fixture
def run_worker(hub: PayHub) -> Callable[[], Pass]:
    worker = Worker(hub.deps, hub.job_handlers(), "test-worker")
    return worker.run_once


def at(clock: FixedClock, hours: float = 0, days: float = 0) -> str:
    return (clock.now() + timedelta(hours=hours, days=days)).isoformat().replace("+00:00", "Z")
