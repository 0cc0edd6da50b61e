"""An invoicing merchant: simulator credentials, a customer, and helpers for invoices."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from payhub import PayHub
from payhub.domain.invoices import Invoice
from tests.conftest import Account
from tests.customers.support import Client, Shop

OWNER_REF = "acme"


class Invoicing(Shop):
    """A merchant that invoices through the simulator."""

    def invoice(self, **fields: Any) -> dict[str, Any]:
        body = {
            "gateway": "simulator",
            "lineItems": [{"description": "Widget", "quantity": 2, "unitPrice": 12.5}],
            **fields,
        }
        return self.created("/invoices", body)

    def stored(self, number: str) -> Invoice:
        invoice = self.read(lambda uow, m: uow.invoices.get(m, number))
        assert invoice is not None
        return invoice

    def token(self, number: str) -> str:
        return self.stored(number).pay_token


def money(value: Any) -> Decimal:
    return Decimal(str(value))


@pytest.fixture
def shop(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> Invoicing:
    make_merchant(sandbox_provider, OWNER_REF, "Acme Plumbing")
    shop = Invoicing(client, hub, sandbox_provider, OWNER_REF)
    # checkout-com: card-only with hosted checkout; forte: no hosted checkout (no driver).
    for gateway in ("simulator", "checkout-com", "forte"):
        shop.ok(shop.put(f"/credentials/{gateway}", {"apiSecret": "s", "environment": "Sandbox"}))
    return shop


@pytest.fixture
def customer(shop: Invoicing) -> dict[str, Any]:
    return shop.created(
        "/customers",
        {
            "name": {"first": "Ada", "last": "Lovelace"},
            "phone": "+1 415 555 2671",
            "email": "ada@example.com",
            "billingAddress": {"line1": "1 Analytical Way", "city": "London", "country": "GB"},
        },
    )
