"""Stax against its own Python client (tests/gateways/stax/contract).

The adapter's requests must carry the fields Stax's client sends on the endpoints it knows
(the fake refuses others with a 422 in every Stax test); the fake must serve the client's own
calls and answer what its models read.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.stax.adapter import StaxGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayError,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)
from tests.gateways.stax.contract import omni
from tests.gateways.stax.fake import API_KEY, FakeStax

CREDS = GatewayCredentials(api_secret=API_KEY, sandbox=True)


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


@pytest.fixture
def fake() -> FakeStax:
    return FakeStax()


@pytest.fixture
def stax(fake: FakeStax) -> Iterator[StaxGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield StaxGateway(client)


def charge(token: str, amount: str, capture: bool = True, key: str = "k") -> ChargeRequest:
    return ChargeRequest(usd(amount), PaymentSource(MethodType.CARD, token=token), capture, key)


def test_the_adapters_requests_carry_what_staxs_client_sends(
    stax: StaxGateway, fake: FakeStax
) -> None:
    sale = stax.charge(CREDS, charge(fake.tokenize(), "30.00", key="k1"))
    auth = stax.charge(CREDS, charge(fake.tokenize(), "20.00", capture=False, key="k2"))
    stax.capture(CREDS, auth.reference, usd("12.50"), "k3")
    fake.settle()
    stax.refund(CREDS, sale.reference, usd("10.00"), "k4")
    stax.status(CREDS, sale.reference)
    stax.save_payment_method(
        CREDS, SaveMethodRequest(MethodType.CARD, fake.tokenize(), "cus_ada", None)
    )

    assert fake.violations == []
    checked = {omni.endpoint(r) for r in fake.requests} & set(omni.reference())
    assert checked >= {"POST /charge", "POST /transaction/{id}/refund", "GET /transaction/{id}"}


def test_a_misspelled_or_missing_field_is_refused_by_the_check_and_the_fake(
    stax: StaxGateway, fake: FakeStax
) -> None:
    stax.charge(CREDS, charge(fake.tokenize(), "10.00"))
    good = fake.requests[-1]
    omni.check(good)

    def post(body: bytes) -> httpx.Request:
        return httpx.Request("POST", good.url, headers=good.headers, content=body)

    misspelled = post(good.content.replace(b'"total"', b'"totl"'))
    with pytest.raises(omni.ContractViolation, match="totl is not a field"):
        omni.check(misspelled)
    without_meta = post(b'{"payment_method_id": "pm", "total": 1.0}')
    with pytest.raises(omni.ContractViolation, match="meta is required"):
        omni.check(without_meta)

    answer = fake.handler(misspelled)
    assert answer.status_code == 422
    assert "totl" in fake.violations[-1]
    broken = StaxGateway(
        httpx.Client(transport=httpx.MockTransport(lambda r: fake.handler(misspelled)))
    )
    with pytest.raises(GatewayError):
        broken.charge(CREDS, charge(fake.tokenize(), "10.00", key="k9"))


def test_staxs_own_client_is_served_by_the_fake_and_reads_its_answers(fake: FakeStax) -> None:
    token = fake.tokenize("4111111111111111")
    with omni.sdk_talking_to(fake.handler, API_KEY) as (client, _sent):
        # pre_auth: the client may leave it out, the reference page requires it (see SOURCE)
        sale = client.charges.create(id=token, meta={"tax": 0}, total=10.0, pre_auth=False)
        assert (sale.success, sale.payment_method_id) == (True, token)
        assert Decimal(str(sale.total)) == Decimal("10.00")

        read = client.transactions.get(sale.id)
        assert (read.id, read.type) == (sale.id, "charge")

        fake.settle()
        refunded = client.transactions.refund(sale.id, 4.0)  # the charge, with its refund child
        assert refunded.id == sale.id
        assert Decimal(str(refunded.total_refunded)) == Decimal("4.00")
        [child] = refunded.child_transactions
        assert (child.type, Decimal(str(child.total))) == ("refund", Decimal("4.00"))

        method = client.paymentmethods.get(token)
        assert (method.id, method.card_last_four) == (token, "1111")

    assert fake.violations == []
    adapter = StaxGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))
    assert adapter.status(CREDS, sale.id).status is GatewayStatus.CAPTURED
