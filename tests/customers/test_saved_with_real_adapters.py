"""Saving through the real Stripe and Square adapters, each against its fake of the gateway's
API (tests/gateways/<gateway>/fake.py): the route, the service, the gateway port and the
adapter together."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from payhub import PayHub
from payhub.adapters.gateways.square.adapter import SquareGateway
from payhub.adapters.gateways.stripe.adapter import StripeGateway
from payhub.adapters.system import FixedClock
from tests.conftest import Account
from tests.customers.support import Client, Shop
from tests.gateways.square.fake import ACCESS_TOKEN, FakeSquare
from tests.gateways.stripe.fake import TEST_KEY, FakeStripe


@pytest.fixture
def stripe() -> FakeStripe:
    return FakeStripe()


@pytest.fixture
def square() -> FakeSquare:
    return FakeSquare()


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, stripe: FakeStripe, square: FakeSquare
) -> Iterator[PayHub]:
    with (
        httpx.Client(transport=httpx.MockTransport(stripe.handler)) as stripe_http,
        httpx.Client(transport=httpx.MockTransport(square.handler)) as square_http,
    ):
        gateways: dict[str, Any] = {
            "stripe": StripeGateway(stripe_http),
            "square": SquareGateway(square_http),
        }
        hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
        yield hub
        hub.close()


@pytest.fixture
def cid(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> tuple[Shop, str]:
    make_merchant(sandbox_provider, "acme")
    shop = Shop(client, hub, sandbox_provider, "acme")
    for gateway, secret in (("stripe", TEST_KEY), ("square", ACCESS_TOKEN)):
        shop.ok(
            shop.put(
                f"/credentials/{gateway}",
                {"apiSecret": secret, "environment": "Sandbox", "enabled": True},
            )
        )
    made = shop.created("/customers", {"name": {"first": "Ada"}, "email": "ada@example.com"})
    return shop, made["customerId"]


def test_stripe_saves_cards_and_bank_accounts_on_one_customer(
    cid: tuple[Shop, str], stripe: FakeStripe
) -> None:
    shop, customer = cid
    card = shop.created(
        f"/customers/{customer}/payment-methods/stripe", {"paymentMethodToken": "pm_card_visa"}
    )
    assert (card["brand"], card["last4"], card["type"]) == ("visa", "4242", "Card")
    bank = shop.created(
        f"/customers/{customer}/payment-methods/stripe",
        {"paymentMethodToken": "pm_usBankAccount_success", "type": "BankAccount"},
    )
    assert (bank["type"], bank["last4"], bank["bankName"]) == (
        "BankAccount",
        "6789",
        "STRIPE TEST BANK",
    )
    assert len(stripe.posts("/v1/customers")) == 1
    [stripe_customer] = stripe.customers
    stored = shop.read(lambda uow, m: uow.payment_methods.list(m, customer))
    assert {m.gateway_customer_ref for m in stored} == {stripe_customer}
    assert all(m.method_ref.startswith("pm_") for m in stored)
    assert stripe_customer not in str(card) + str(bank)


def test_square_saves_a_card_but_is_never_asked_for_a_bank_account(
    cid: tuple[Shop, str], square: FakeSquare
) -> None:
    shop, customer = cid
    card = shop.created(
        f"/customers/{customer}/payment-methods/square",
        {"paymentMethodToken": "cnon:card-nonce-ok"},
    )
    assert (card["type"], card["last4"]) == ("Card", "5858")
    asked = len(square.requests)
    refused = shop.post(
        f"/customers/{customer}/payment-methods/square",
        {"paymentMethodToken": "bnon:bank-ok", "type": "BankAccount"},
    )
    assert refused.status_code == 400
    assert len(square.requests) == asked
