"""The Checkout.com adapter against the real sandbox. Runs only with credentials.

Set ``CHECKOUT_COM_SANDBOX_SECRET`` (an ``sk_sbox_`` key) and ``CHECKOUT_COM_SANDBOX_PUBLIC_KEY``
(its ``pk_sbox_`` key, used here as Frames would to tokenize a test card through ``POST /tokens``);
``CHECKOUT_COM_SANDBOX_PROCESSING_CHANNEL`` when the account needs ``processing_channel_id``.
Declines use the sandbox amount triggers
(https://www.checkout.com/docs/developer-resources/testing/simulate-declines).
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.checkout_com.adapter import SANDBOX_BASE, CheckoutComGateway
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

SECRET = os.environ.get("CHECKOUT_COM_SANDBOX_SECRET", "")
PUBLIC = os.environ.get("CHECKOUT_COM_SANDBOX_PUBLIC_KEY", "")
CHANNEL = os.environ.get("CHECKOUT_COM_SANDBOX_PROCESSING_CHANNEL", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (SECRET and PUBLIC), reason="CHECKOUT_COM_SANDBOX_SECRET/_PUBLIC_KEY are not set"
    ),
]


@pytest.fixture(scope="module")
def gateway() -> CheckoutComGateway:
    return CheckoutComGateway()


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    fields = {"processingChannelId": CHANNEL} if CHANNEL else {}
    return GatewayCredentials(SECRET, sandbox=True, fields=fields)


def frames_token() -> str:
    answer = httpx.post(
        f"{SANDBOX_BASE}/tokens",
        headers={"Authorization": f"Bearer {PUBLIC}"},
        json={
            "type": "card",
            "number": "4242424242424242",
            "expiry_month": 6,
            "expiry_year": 2030,
            "cvv": "100",
        },
    ).json()
    return str(answer["token"])


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def key() -> str:
    return f"phr-{uuid.uuid4()}"


def charge(amount: str, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        usd(amount), PaymentSource(MethodType.CARD, token=frames_token()), capture, key()
    )


def test_sale_refund(gateway: CheckoutComGateway, creds: GatewayCredentials) -> None:
    sale = gateway.charge(creds, charge("10.05"))
    # Checkout.com captures capture:true payments asynchronously: "Authorized" first.
    assert sale.status in (GatewayStatus.AUTHORIZED, GatewayStatus.CAPTURED)
    assert gateway.refund(creds, sale.reference, usd("5.00"), key()).status is (
        GatewayStatus.PENDING
    )


def test_auth_capture_and_void(gateway: CheckoutComGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, charge("20.00", capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert gateway.capture(creds, auth.reference, usd("12.00"), key()).status is (
        GatewayStatus.PENDING
    )
    other = gateway.charge(creds, charge("7.00", capture=False))
    assert gateway.void(creds, other.reference, key()).status is GatewayStatus.PENDING


def test_insufficient_funds(gateway: CheckoutComGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(creds, charge("120.51"))
    assert caught.value.decline_code == "insufficient_funds"


def test_unknown_token(gateway: CheckoutComGateway, creds: GatewayCredentials) -> None:
    source = PaymentSource(MethodType.CARD, token="tok_payhubdoesnotexist0000000000")
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, ChargeRequest(usd("1.00"), source, True, key()))


def test_bad_key(gateway: CheckoutComGateway) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.status(GatewayCredentials("sk_sbox_notakey", sandbox=True), "pay_x")


def test_save_and_charge(gateway: CheckoutComGateway, creds: GatewayCredentials) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD, frames_token(), "phr", None, "phr@example.com", idempotency_key=key()
        ),
    )
    assert saved.last4 == "4242"
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    assert gateway.charge(creds, ChargeRequest(usd("9.00"), source, True, key())).status in (
        GatewayStatus.AUTHORIZED,
        GatewayStatus.CAPTURED,
    )
