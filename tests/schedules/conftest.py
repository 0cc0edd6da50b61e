"""A merchant with simulator credentials, a customer and saved cards, driven by a FixedClock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.system import FixedClock
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayResult,
    GatewayTimeout,
)
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


class Crash(BaseException):
    """The worker process dies: not an error any handler catches."""


class GatewayBook(SimulatorGateway):
    """The simulator, keeping the gateway's own books: every idempotency key under which money
    moved (a success, or a timeout whose charge went through). A double charge is two keys for
    one intended charge. ``crash_after_charge`` kills the caller once the money has moved;
    ``decline_next`` declines that many charges of any method."""

    def __init__(self) -> None:
        super().__init__()
        self.moved: list[str] = []
        self.calls = 0
        self.crash_after_charge = False
        self.decline_next = 0

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        self.calls += 1
        key = request.idempotency_key
        if self.decline_next:
            self.decline_next -= 1
            raise Declined("the card was declined (test)", gateway=self.name)
        try:
            result = super().charge(creds, request)
        except GatewayTimeout:
            if key not in self.moved:
                self.moved.append(key)
            raise
        if key not in self.moved:
            self.moved.append(key)
        if self.crash_after_charge:
            self.crash_after_charge = False
            raise Crash("the process died after the gateway charged, before payhub recorded it")
        return result


@pytest.fixture
def gateway_book(hub: PayHub) -> GatewayBook:
    book = GatewayBook()
    hub.gateway_adapters["simulator"] = book
    return book


@pytest.fixture
def run_worker(hub: PayHub) -> Callable[[], Pass]:
    worker = Worker(hub.deps, hub.job_handlers(), "test-worker")
    return worker.run_once


def at(clock: FixedClock, hours: float = 0, days: float = 0) -> str:
    return (clock.now() + timedelta(hours=hours, days=days)).isoformat().replace("+00:00", "Z")
