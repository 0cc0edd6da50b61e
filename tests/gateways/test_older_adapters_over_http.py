"""The five adapters that predate the per-gateway HTTP tests (Stripe, Braintree, Authorize.Net,
NMI, Square), each charged through payhub's API against its fake: credentials set with
``PUT …/credentials/{gateway}``, then ``POST /api/payments/charge`` (a sale and an
authorization), and the ledger checked against what the fake answered."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.authorize_net.adapter import AuthorizeNetGateway
from payhub.adapters.gateways.braintree.adapter import BraintreeGateway
from payhub.adapters.gateways.nmi.adapter import NmiGateway
from payhub.adapters.gateways.square.adapter import SquareGateway
from payhub.adapters.gateways.stripe.adapter import StripeGateway
from payhub.adapters.system import FixedClock
from payhub.domain.payments import TxStatus
from payhub.ports import Gateway
from tests.conftest import Account
from tests.gateways.authorize_net import fake as authorize_net
from tests.gateways.braintree import fake as braintree
from tests.gateways.nmi import fake as nmi
from tests.gateways.square import fake as square
from tests.gateways.stripe import fake as stripe


@attrs.frozen
class Case:
    gateway: str
    make_fake: Callable[[], Any]
    make_adapter: Callable[[httpx.Client], Gateway]
    secret: str
    fields: dict[str, str]
    token: str


CASES = [
    Case("stripe", stripe.FakeStripe, StripeGateway, stripe.TEST_KEY, {}, "pm_card_visa"),
    Case(
        "braintree",
        braintree.FakeBraintree,
        BraintreeGateway,
        braintree.PRIVATE_KEY,
        {"publicKey": braintree.PUBLIC_KEY, "merchantId": braintree.MERCHANT_ID},
        "fake-valid-nonce",
    ),
    Case(
        "authorize-net",
        authorize_net.FakeAuthorizeNet,
        AuthorizeNetGateway,
        authorize_net.FAKE_TRANSACTION_KEY,
        {"apiLoginId": authorize_net.FAKE_LOGIN},
        "tok_visa",
    ),
    Case("nmi", nmi.FakeNmi, NmiGateway, nmi.SECURITY_KEY, {}, "tok_visa"),
    Case(
        "square",
        square.FakeSquare,
        SquareGateway,
        square.ACCESS_TOKEN,
        {"locationId": square.LOCATION_ID},
        "cnon:card-nonce-ok",
    ),
]


@pytest.fixture(params=CASES, ids=[c.gateway for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    chosen: Case = request.param
    return chosen


@pytest.fixture
def answers() -> list[str]:
    """Every body the fake answered, to find the gateway's reference in."""
    return []


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, case: Case, answers: list[str]
) -> Iterator[PayHub]:
    fake = case.make_fake()

    def handler(request: httpx.Request) -> httpx.Response:
        response: httpx.Response = fake.handler(request)
        answers.append(response.read().decode("utf-8", "replace"))
        return response

    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        gateways: dict[str, Any] = {case.gateway: case.make_adapter(http)}
        hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
        yield hub
        hub.close()


@pytest.mark.parametrize(("capture", "status"), [(True, "Captured"), (False, "Authorized")])
def test_a_charge_through_payhubs_api_reaches_the_gateway(
    client: TestClient[Litestar],
    hub: PayHub,
    case: Case,
    answers: list[str],
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    capture: bool,
    status: str,
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    put = client.put(
        f"/api/merchant-accounts/shop-1/credentials/{case.gateway}",
        json={
            "apiSecret": case.secret,
            "environment": "Sandbox",
            "enabled": True,
            **({"additionalFields": case.fields} if case.fields else {}),
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.05", "currency": "USD"},
            "gatewayName": case.gateway,
            "paymentMethodToken": case.token,
            "capture": capture,
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == status
    reference = body["gatewayReference"]
    assert reference
    assert any(reference.split("/")[0] in answer for answer in answers)
    with hub.store.unit_of_work(readonly=True) as uow:
        merchant = next(m for p in uow.providers.list() for m in uow.merchants.list(p.id))
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    expected = TxStatus.CAPTURED if capture else TxStatus.AUTHORIZED
    assert (tx.status, tx.gateway, tx.gateway_reference) == (expected, case.gateway, reference)
    assert str(tx.amount.amount) == "25.05"
    assert case.secret not in response.text
