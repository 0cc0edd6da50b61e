"""The PayPal adapter against PayPal's real sandbox. Runs only with credentials.

Set ``PAYPAL_SANDBOX_CLIENT_ID`` and ``PAYPAL_SANDBOX_SECRET`` (a sandbox REST app with Advanced
Credit and Debit Card Payments and Vault enabled). PayPal has no server-side test tokens: a
fresh card is an order the JS SDK Card Fields confirmed, and a saved card starts as a setup
token they approved, so these tests build both in the sandbox from a test card number
(https://developer.paypal.com/tools/sandbox/card-testing/), as Card Fields would, and then
hand only the ids to the adapter. Never run in CI.
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.paypal.adapter import SANDBOX_BASE, PayPalGateway
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

CLIENT_ID = os.environ.get("PAYPAL_SANDBOX_CLIENT_ID", "")
SECRET = os.environ.get("PAYPAL_SANDBOX_SECRET", "")
TEST_CARD = "4012888888881881"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CLIENT_ID and SECRET), reason="PAYPAL_SANDBOX_CLIENT_ID/_SECRET are not set"
    ),
]


@pytest.fixture(scope="module")
def gateway() -> PayPalGateway:
    return PayPalGateway()


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=SECRET, sandbox=True, fields={"clientId": CLIENT_ID})


def _bearer() -> dict[str, str]:
    token = httpx.post(
        f"{SANDBOX_BASE}/v1/oauth2/token",
        auth=(CLIENT_ID, SECRET),
        data={"grant_type": "client_credentials"},
    ).json()["access_token"]
    return {"Authorization": f"Bearer {token}", "PayPal-Request-Id": str(uuid.uuid4())}


def card_fields_order(name: str = "Ada Lovelace") -> str:
    """What Card Fields leave behind: an order with the card confirmed on it."""
    headers = _bearer()
    order = httpx.post(
        f"{SANDBOX_BASE}/v2/checkout/orders",
        headers=headers,
        json={
            "intent": "CAPTURE",
            "purchase_units": [{"amount": {"currency_code": "USD", "value": "1.00"}}],
        },
    ).json()
    httpx.post(
        f"{SANDBOX_BASE}/v2/checkout/orders/{order['id']}/confirm-payment-source",
        headers=_bearer(),
        json={
            "payment_source": {
                "card": {
                    "number": TEST_CARD,
                    "expiry": "2030-12",
                    "security_code": "123",
                    "name": name,
                }
            }
        },
    ).raise_for_status()
    return str(order["id"])


def approved_setup_token() -> str:
    answer = httpx.post(
        f"{SANDBOX_BASE}/v3/vault/setup-tokens",
        headers=_bearer(),
        json={"payment_source": {"card": {"number": TEST_CARD, "expiry": "2030-12"}}},
    ).json()
    return str(answer["id"])


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def key() -> str:
    return f"payhub-remote-{uuid.uuid4()}"


def charge(token: str, amount: str, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(usd(amount), PaymentSource(MethodType.CARD, token=token), capture, key())


def test_sale_then_refunds(gateway: PayPalGateway, creds: GatewayCredentials) -> None:
    sale = gateway.charge(creds, charge(card_fields_order(), "10.05"))
    assert (sale.status, sale.amount) == (GatewayStatus.CAPTURED, usd("10.05"))

    gateway.refund(creds, sale.reference, usd("5.00"), key())
    gateway.refund(creds, sale.reference, usd("5.05"), key())
    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED


def test_authorize_capture_part(gateway: PayPalGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, charge(card_fields_order(), "20.00", capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED

    captured = gateway.capture(creds, auth.reference, usd("12.00"), key())
    assert captured.amount == usd("12.00")


def test_void(gateway: PayPalGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, charge(card_fields_order(), "7.00", capture=False))

    gateway.void(creds, auth.reference, key())
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_insufficient_funds(gateway: PayPalGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(creds, charge(card_fields_order("CCREJECT-IF"), "10.00"))
    assert caught.value.decline_code == "insufficient_funds"


def test_unknown_order(gateway: PayPalGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, charge("5O000000000000000", "10.00"))


def test_bad_secret(gateway: PayPalGateway) -> None:
    wrong = GatewayCredentials("not-the-secret", sandbox=True, fields={"clientId": CLIENT_ID})
    with pytest.raises(GatewayCredentialsRejected):
        gateway.status(wrong, "5O000000000000000")


def test_save_and_charge(gateway: PayPalGateway, creds: GatewayCredentials) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD, approved_setup_token(), "payhub-remote", None, idempotency_key=key()
        ),
    )
    assert saved.last4 == TEST_CARD[-4:]

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.00"), source, True, key()))
    assert result.status is GatewayStatus.CAPTURED
