"""The Square adapter against Square's real sandbox; skipped unless credentials are set.

Environment:
  SQUARE_SANDBOX_ACCESS_TOKEN  a sandbox access token (Developer Console > Credentials)
  SQUARE_SANDBOX_LOCATION_ID   optional: the sandbox location; the main location otherwise
  SQUARE_SANDBOX_CURRENCY      optional: the sandbox seller's currency, USD by default
  SQUARE_SANDBOX_ACH_TOKEN     optional: a fresh Web Payments SDK bank token for the ACH test

Tokens are Square's documented sandbox values
(https://developer.squareup.com/docs/devtools/sandbox/payments).
"""

from __future__ import annotations

import os
import uuid

import pytest

from payhub.adapters.gateways.square.adapter import SquareGateway
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

TOKEN = os.environ.get("SQUARE_SANDBOX_ACCESS_TOKEN", "")
OK_NONCE = "cnon:card-nonce-ok"  # Square's reusable sandbox card token
CURRENCY = os.environ.get("SQUARE_SANDBOX_CURRENCY", "USD")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not TOKEN, reason="SQUARE_SANDBOX_ACCESS_TOKEN is not set"),
]


@pytest.fixture
def gateway() -> SquareGateway:
    return SquareGateway()


@pytest.fixture
def creds() -> GatewayCredentials:
    location = os.environ.get("SQUARE_SANDBOX_LOCATION_ID")
    return GatewayCredentials(
        TOKEN, sandbox=True, fields={"locationId": location} if location else {}
    )


def money(value: str) -> Money:
    return Money.of(value, CURRENCY)


def charge(amount: Money, source_id: str = OK_NONCE, capture: bool = True) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token=source_id)
    return ChargeRequest(amount, source, capture, f"remote-{uuid.uuid4()}", "payhub remote test")


def test_sale_then_partial_and_full_refund(
    gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, charge(money("10.05")))
    assert sale.status is GatewayStatus.CAPTURED
    assert sale.amount == money("10.05")

    part = gateway.refund(creds, sale.reference, money("4.00"), f"remote-{uuid.uuid4()}")
    rest = gateway.refund(creds, sale.reference, money("6.05"), f"remote-{uuid.uuid4()}")

    # Square answers refunds PENDING (finished later) or, at times, COMPLETED at once.
    finished_or_not = (GatewayStatus.REFUNDED, GatewayStatus.PENDING)
    assert part.status in finished_or_not
    assert rest.status in finished_or_not
    assert part.amount + rest.amount == sale.amount
    read = gateway.status(creds, sale.reference)
    assert read.refunded is not None
    assert read.refunding is not None
    assert read.refunded + read.refunding == sale.amount


def test_authorize_then_partial_capture(gateway: SquareGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, charge(money("20.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED

    captured = gateway.capture(creds, auth.reference, money("15.00"), f"remote-{uuid.uuid4()}")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.amount == money("15.00")
    assert gateway.status(creds, auth.reference).status is GatewayStatus.CAPTURED


def test_authorize_then_void(gateway: SquareGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, charge(money("7.00"), capture=False))

    voided = gateway.void(creds, auth.reference, f"remote-{uuid.uuid4()}")

    assert voided.status is GatewayStatus.VOIDED
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_idempotent_retry_returns_the_same_payment(
    gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    request = charge(money("3.00"))

    assert gateway.charge(creds, request).reference == gateway.charge(creds, request).reference


def test_save_a_card_and_charge_it(gateway: SquareGateway, creds: GatewayCredentials) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD,
            OK_NONCE,
            customer_id=f"remote-{uuid.uuid4().hex[:12]}",
            gateway_customer_ref=None,
            email="remote-test@example.com",
            name="Remote Test",
            idempotency_key=f"remote-{uuid.uuid4()}",
        ),
    )
    assert saved.method_ref.startswith("ccof:")
    assert saved.last4

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(money("2.00"), source, True, f"r-{uuid.uuid4()}"))

    assert result.status is GatewayStatus.CAPTURED


@pytest.mark.parametrize(
    ("token", "decline_code"),
    [
        ("cnon:card-nonce-declined", "generic_decline"),
        ("cnon:card-nonce-rejected-cvv", "incorrect_cvc"),
        ("cnon:card-nonce-rejected-expiration", "expired_card"),
    ],
)
def test_declines(
    gateway: SquareGateway, creds: GatewayCredentials, token: str, decline_code: str
) -> None:
    with pytest.raises(Declined) as raised:
        gateway.charge(creds, charge(money("1.00"), source_id=token))

    assert raised.value.decline_code == decline_code


@pytest.mark.parametrize("token", ["cnon:card-nonce-already-used", "cnon:no-such-nonce"])
def test_unusable_tokens(gateway: SquareGateway, creds: GatewayCredentials, token: str) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, charge(money("1.00"), source_id=token))


def test_a_wrong_token_is_rejected_credentials(gateway: SquareGateway) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(GatewayCredentials("EAAAEnot-a-token", sandbox=True), charge(money("1.00")))


@pytest.mark.skipif(
    not os.environ.get("SQUARE_SANDBOX_ACH_TOKEN"), reason="SQUARE_SANDBOX_ACH_TOKEN is not set"
)
def test_ach_charge_is_submitted(gateway: SquareGateway, creds: GatewayCredentials) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token=os.environ["SQUARE_SANDBOX_ACH_TOKEN"])
    request = ChargeRequest(Money.of("1.00", "USD"), source, True, f"remote-{uuid.uuid4()}")

    assert gateway.charge(creds, request).status is GatewayStatus.SUBMITTED
