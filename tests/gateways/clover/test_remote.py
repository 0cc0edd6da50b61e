"""The Clover adapter against Clover's real sandbox; skipped unless credentials are set.

Environment:
  CLOVER_SANDBOX_PRIVATE_KEY  the Ecommerce private key (or an OAuth access token) of a
                              sandbox merchant (sandbox.dev.clover.com), sent as Bearer
  CLOVER_SANDBOX_PUBLIC_KEY   the same merchant's public (PAKMS) key, used here to make
                              ``clv_`` tokens the way the Clover iframe does

The iframe runs only in a browser, so these tests tokenize Clover's documented sandbox test
cards through ``POST https://token-sandbox.dev.clover.com/v1/tokens`` (header ``apikey``), a
sandbox-only fixture: payhub itself never sends card numbers
(https://docs.clover.com/docs/ecommerce-generating-a-card-token,
https://docs.clover.com/docs/test-card-numbers). Saving a card needs multi-pay tokens enabled
on the sandbox merchant.
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.clover.adapter import CloverGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayStatus,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
)

PRIVATE_KEY = os.environ.get("CLOVER_SANDBOX_PRIVATE_KEY", "")
PUBLIC_KEY = os.environ.get("CLOVER_SANDBOX_PUBLIC_KEY", "")
TOKEN_URL = "https://token-sandbox.dev.clover.com/v1/tokens"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (PRIVATE_KEY and PUBLIC_KEY),
        reason="CLOVER_SANDBOX_PRIVATE_KEY and CLOVER_SANDBOX_PUBLIC_KEY are not set",
    ),
]


@pytest.fixture(scope="module")
def http() -> httpx.Client:
    return httpx.Client(timeout=60)


@pytest.fixture(scope="module")
def gateway(http: httpx.Client) -> CloverGateway:
    return CloverGateway(http)


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=PRIVATE_KEY, sandbox=True)


def token(http: httpx.Client, number: str = "4242424242424242", brand: str = "VISA") -> str:
    response = http.post(
        TOKEN_URL,
        headers={"apikey": PUBLIC_KEY, "Accept": "application/json"},
        json={
            "card": {
                "number": number,
                "exp_month": "12",
                "exp_year": "2030",
                "cvv": "123",
                "brand": brand,
            }
        },
    )
    response.raise_for_status()
    value: str = response.json()["id"]
    return value


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def charge(source: str, amount: Money, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount, PaymentSource(MethodType.CARD, token=source), capture, str(uuid.uuid4())
    )


def test_sale_then_partial_and_full_refund(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    sale = gateway.charge(creds, charge(token(http), usd("10.05")))
    assert (sale.status, sale.amount) == (GatewayStatus.CAPTURED, usd("10.05"))

    gateway.refund(creds, sale.reference, usd("5.00"), str(uuid.uuid4()))
    gateway.refund(creds, sale.reference, usd("5.05"), str(uuid.uuid4()))
    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED


def test_authorize_capture_part(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    auth = gateway.charge(creds, charge(token(http), usd("20.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED

    captured = gateway.capture(creds, auth.reference, usd("12.00"), str(uuid.uuid4()))
    assert captured.status is GatewayStatus.CAPTURED


def test_void_an_authorization(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    auth = gateway.charge(creds, charge(token(http), usd("7.00"), capture=False))

    assert gateway.void(creds, auth.reference, str(uuid.uuid4())).status is GatewayStatus.VOIDED


def test_a_retried_charge_returns_the_same_charge(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    request = charge(token(http), usd("3.00"))

    assert gateway.charge(creds, request).reference == gateway.charge(creds, request).reference


def test_the_documented_decline_card(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    with pytest.raises(Declined):
        gateway.charge(creds, charge(token(http, "4005571702222222"), usd("10.00")))


def test_a_spent_token(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    spent = token(http)
    gateway.charge(creds, charge(spent, usd("2.00")))
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, charge(spent, usd("2.00")))


def test_bad_key(gateway: CloverGateway, http: httpx.Client) -> None:
    wrong = GatewayCredentials(api_secret=str(uuid.uuid4()), sandbox=True)
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(wrong, charge(token(http), usd("1.00")))


def test_save_a_card_and_charge_it(
    gateway: CloverGateway, creds: GatewayCredentials, http: httpx.Client
) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD,
            token(http),
            "payhub-remote",
            None,
            email="payhub-remote@example.com",
            idempotency_key=str(uuid.uuid4()),
        ),
    )
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.00"), source, True, str(uuid.uuid4())))
    assert result.status is GatewayStatus.CAPTURED
