"""The Helcim adapter against a real Helcim developer test account; skipped unless configured.

Environment:
  HELCIM_SANDBOX_API_TOKEN   the API token of a Helcim developer *test* account (Helcim has one
                             host, api.helcim.com, for test and live: the account decides, so
                             never point this at a live account)
  HELCIM_SANDBOX_CARD_TOKEN  a ``cardToken`` from HelcimPay.js ("verify" with Helcim's test card
                             5454 5454 5454 5454) on that account; the charge tests need it
  HELCIM_SANDBOX_DECLINE_TOKEN  optional: a cardToken verified with CVV 200 or higher, which the
                             test account declines (https://devdocs.helcim.com/docs/testing-declines-and-avs)

HelcimPay.js runs only in a browser and payhub never sends card numbers, so the card tokens are
made by hand once (https://devdocs.helcim.com/docs/helcimpayjs-initialization). Every charge
here uses a fresh amount so Helcim's 5-minute suspected-duplicate check does not decline reruns.
"""

from __future__ import annotations

import os
import random
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.helcim.adapter import HelcimGateway
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

API_TOKEN = os.environ.get("HELCIM_SANDBOX_API_TOKEN", "")
CARD_TOKEN = os.environ.get("HELCIM_SANDBOX_CARD_TOKEN", "")
DECLINE_TOKEN = os.environ.get("HELCIM_SANDBOX_DECLINE_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (API_TOKEN and CARD_TOKEN),
        reason="HELCIM_SANDBOX_API_TOKEN and HELCIM_SANDBOX_CARD_TOKEN are not set",
    ),
]


@pytest.fixture(scope="module")
def gateway() -> HelcimGateway:
    return HelcimGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=API_TOKEN, sandbox=True)


def amount() -> Money:
    """A fresh amount each call, so the suspected-duplicate check stays out of the way."""
    return Money.of(Decimal(random.randint(1000, 9999)).scaleb(-2), "CAD")


def charge(token: str, value: Money, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        value, PaymentSource(MethodType.CARD, token=token), capture, uuid.uuid4().hex
    )


def test_sale_then_partial_refund_and_status(
    gateway: HelcimGateway, creds: GatewayCredentials
) -> None:
    value = amount()
    sale = gateway.charge(creds, charge(CARD_TOKEN, value))
    assert (sale.status, sale.amount) == (GatewayStatus.CAPTURED, value)

    refund = gateway.refund(
        creds, sale.reference, Money.of(Decimal("1.00"), "CAD"), uuid.uuid4().hex
    )
    assert refund.status is GatewayStatus.REFUNDED
    assert gateway.status(creds, sale.reference).status is GatewayStatus.CAPTURED


def test_authorize_capture_part_and_refund_through_the_capture(
    gateway: HelcimGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, charge(CARD_TOKEN, amount(), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED

    part = Money.of(Decimal("5.00"), "CAD")
    captured = gateway.capture(creds, auth.reference, part, uuid.uuid4().hex)
    assert captured.status is GatewayStatus.CAPTURED
    assert gateway.status(creds, auth.reference).status is GatewayStatus.CAPTURED  # via invoice
    refund = gateway.refund(creds, auth.reference, part, uuid.uuid4().hex)
    assert refund.status is GatewayStatus.REFUNDED


def test_void_an_authorization(gateway: HelcimGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, charge(CARD_TOKEN, amount(), capture=False))

    assert gateway.void(creds, auth.reference, uuid.uuid4().hex).status is GatewayStatus.VOIDED
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_a_retry_returns_the_same_charge_and_lookup_finds_it(
    gateway: HelcimGateway, creds: GatewayCredentials
) -> None:
    request = charge(CARD_TOKEN, amount())

    first = gateway.charge(creds, request)
    assert gateway.charge(creds, request).reference == first.reference
    found = gateway.lookup(creds, request)
    assert found is not None
    assert found.reference == first.reference


@pytest.mark.skipif(not DECLINE_TOKEN, reason="HELCIM_SANDBOX_DECLINE_TOKEN is not set")
def test_a_declining_card(gateway: HelcimGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(Declined):
        gateway.charge(creds, charge(DECLINE_TOKEN, amount()))


def test_bad_token(gateway: HelcimGateway) -> None:
    wrong = GatewayCredentials(api_secret=uuid.uuid4().hex, sandbox=True)
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(wrong, charge(CARD_TOKEN, amount()))


def test_save_the_card_and_charge_it(gateway: HelcimGateway, creds: GatewayCredentials) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD, CARD_TOKEN, "payhub-remote", None, idempotency_key=uuid.uuid4().hex
        ),
    )
    assert saved.last4 == "5454"
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(amount(), source, True, uuid.uuid4().hex))
    assert result.status is GatewayStatus.CAPTURED
