"""The Stax adapter against a real Stax sandbox account; skipped unless a key is set.

Environment:
  STAX_SANDBOX_API_KEY  the API key of a Stax *sandbox* merchant (bound to a test gateway).
                        Stax serves sandbox and live from one host, apiprod.fattlabs.com, so
                        never point this at a live merchant: these tests charge real cards there.

Stax.js runs only in a browser, so these tests make payment methods the way it does, through
``POST /customer`` and ``POST /payment-method/`` with Stax's documented sandbox cards (success
4111 1111 1111 1111, failure 4012 8888 8888 1881: https://docs.staxpayments.com/docs/test-environments),
a sandbox-only fixture: payhub itself never sends card numbers. Refunds need a settled batch, so
the refund test checks the void-before-settlement path.
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.stax.adapter import BASE_URL, StaxGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)

API_KEY = os.environ.get("STAX_SANDBOX_API_KEY", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not API_KEY, reason="STAX_SANDBOX_API_KEY is not set"),
]


@pytest.fixture(scope="module")
def http() -> httpx.Client:
    return httpx.Client(
        base_url=BASE_URL, timeout=60, headers={"Authorization": f"Bearer {API_KEY}"}
    )


@pytest.fixture(scope="module")
def gateway() -> StaxGateway:
    return StaxGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=API_KEY, sandbox=True)


@pytest.fixture(scope="module")
def customer(http: httpx.Client) -> str:
    response = http.post(
        "/customer",
        json={"firstname": "payhub", "lastname": "remote", "email": "payhub-remote@example.com"},
    )
    response.raise_for_status()
    value: str = response.json()["id"]
    return value


def payment_method(http: httpx.Client, customer: str, number: str = "4111111111111111") -> str:
    response = http.post(
        "/payment-method/",
        json={
            "method": "card",
            "person_name": "payhub remote",
            "card_number": number,
            "card_cvv": "123",
            "card_exp": "1230",
            "customer_id": customer,
        },
    )
    response.raise_for_status()
    value: str = response.json()["id"]
    return value


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def charge(token: str, amount: Money, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount, PaymentSource(MethodType.CARD, token=token), capture, uuid.uuid4().hex
    )


def test_sale_then_full_refund_before_settlement(
    gateway: StaxGateway, creds: GatewayCredentials, http: httpx.Client, customer: str
) -> None:
    sale = gateway.charge(creds, charge(payment_method(http, customer), usd("10.05")))
    assert (sale.status, sale.amount) == (GatewayStatus.CAPTURED, usd("10.05"))

    refund = gateway.refund(creds, sale.reference, usd("10.05"), uuid.uuid4().hex)
    assert refund.status is GatewayStatus.REFUNDED
    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED


def test_authorize_capture_part(
    gateway: StaxGateway, creds: GatewayCredentials, http: httpx.Client, customer: str
) -> None:
    auth = gateway.charge(creds, charge(payment_method(http, customer), usd("20.00"), False))
    assert auth.status is GatewayStatus.AUTHORIZED

    captured = gateway.capture(creds, auth.reference, usd("12.00"), uuid.uuid4().hex)
    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("12.00"))
    assert gateway.status(creds, auth.reference).status is GatewayStatus.CAPTURED


def test_void_an_authorization(
    gateway: StaxGateway, creds: GatewayCredentials, http: httpx.Client, customer: str
) -> None:
    auth = gateway.charge(creds, charge(payment_method(http, customer), usd("7.00"), False))

    assert gateway.void(creds, auth.reference, uuid.uuid4().hex).status is GatewayStatus.VOIDED


def test_a_retried_charge_returns_the_same_transaction(
    gateway: StaxGateway, creds: GatewayCredentials, http: httpx.Client, customer: str
) -> None:
    request = charge(payment_method(http, customer), usd("3.00"))

    assert gateway.charge(creds, request).reference == gateway.charge(creds, request).reference


def test_the_documented_failure_card(
    gateway: StaxGateway, creds: GatewayCredentials, http: httpx.Client, customer: str
) -> None:
    with pytest.raises(Declined):
        gateway.charge(creds, charge(payment_method(http, customer, "4012888888881881"), usd("5")))


def test_bad_key(gateway: StaxGateway, http: httpx.Client, customer: str) -> None:
    wrong = GatewayCredentials(api_secret=uuid.uuid4().hex, sandbox=True)
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(wrong, charge(payment_method(http, customer), usd("1.00")))


def test_save_a_card_and_charge_it(
    gateway: StaxGateway, creds: GatewayCredentials, http: httpx.Client, customer: str
) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(MethodType.CARD, payment_method(http, customer), "payhub-remote", None),
    )
    assert (saved.gateway_customer_ref, saved.last4) == (customer, "1111")
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.00"), source, True, uuid.uuid4().hex))
    assert result.status is GatewayStatus.CAPTURED
