"""Customers run against the simulator and recording stand-ins for three real gateways, one per
bank-account vaulting mode: Braintree (vault first), Square (fresh only), Stripe (both)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.system import FixedClock
from payhub.domain.payments import (
    GatewayCredentials,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)
from tests.conftest import Account
from tests.customers.support import Client, Shop

OWNER_REF = "acme"


class VaultStandIn:
    """A gateway's vault as far as saving goes: remembers each request, makes up references."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.requests: list[SaveMethodRequest] = []
        self.customers = 0

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        self.requests.append(request)
        if request.token.startswith("bad"):
            raise PaymentMethodInvalid("unknown token", gateway=self.name)
        customer = request.gateway_customer_ref
        if customer is None:
            self.customers += 1
            customer = f"{self.name}-cus-{self.customers}"
        bank = request.method_type is MethodType.BANK_ACCOUNT
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=f"{self.name}-pm-{len(self.requests)}",
            method_type=request.method_type,
            brand=None if bank else "visa",
            last4="6789" if bank else "1111",
            exp_month=None if bank else 4,
            exp_year=None if bank else 2031,
            bank_name="First Test Bank" if bank else None,
        )

    def __getattr__(self, op: str) -> Any:
        raise AssertionError(f"the customer service must not call {self.name}.{op}")


@pytest.fixture
def vaults() -> dict[str, VaultStandIn]:
    return {name: VaultStandIn(name) for name in ("braintree", "square", "stripe")}


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, vaults: dict[str, VaultStandIn]
) -> Iterator[PayHub]:
    gateways: dict[str, Any] = {"simulator": SimulatorGateway(), **vaults}
    hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
    yield hub
    hub.close()


@pytest.fixture
def shop(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> Shop:
    make_merchant(sandbox_provider, OWNER_REF)
    return Shop(client, hub, sandbox_provider, OWNER_REF)


@pytest.fixture
def customer(shop: Shop) -> dict[str, Any]:
    return shop.created(
        "/customers",
        {"name": {"first": "Ada", "last": "Lovelace"}, "phone": "+1 415 555 2671"},
    )
