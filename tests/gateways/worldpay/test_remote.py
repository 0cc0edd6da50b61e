"""The Worldpay adapter against Worldpay's public cnpAPI sandbox; skipped unless configured.

Environment:
  WORLDPAY_SANDBOX_USER          cnpAPI user name
  WORLDPAY_SANDBOX_PASSWORD      cnpAPI password
  WORLDPAY_SANDBOX_MERCHANT_ID   cnpAPI merchant id
  WORLDPAY_SANDBOX_PAYPAGE_ID    optional: an eProtect paypageRegistrationId (from the
                                 eProtect test page); without it the token tests are skipped

The public sandbox (www.testvantivcnp.com/sandbox/communicator/online) needs no account and
simulates answers from what it is sent, so any non-empty user, password and merchant id
work there; the three variables are required only so that this module never reaches the
network by accident.
"""

from __future__ import annotations

import os
import uuid

import httpx
import pytest

from payhub.adapters.gateways.worldpay.adapter import WorldpayGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)

USER = os.environ.get("WORLDPAY_SANDBOX_USER", "")
PASSWORD = os.environ.get("WORLDPAY_SANDBOX_PASSWORD", "")
MERCHANT_ID = os.environ.get("WORLDPAY_SANDBOX_MERCHANT_ID", "")
PAYPAGE_ID = os.environ.get("WORLDPAY_SANDBOX_PAYPAGE_ID", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (USER and PASSWORD and MERCHANT_ID),
        reason="WORLDPAY_SANDBOX_USER, _PASSWORD and _MERCHANT_ID are not set",
    ),
]
needs_paypage = pytest.mark.skipif(not PAYPAGE_ID, reason="WORLDPAY_SANDBOX_PAYPAGE_ID is not set")


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(PASSWORD, True, {"user": USER, "merchantId": MERCHANT_ID})


@pytest.fixture(scope="module")
def worldpay() -> WorldpayGateway:
    return WorldpayGateway(httpx.Client(timeout=60))


def key() -> str:
    return f"ph{uuid.uuid4().hex[:23]}"


def on_paypage(capture: bool = True, value: str = "10.10") -> ChargeRequest:
    return ChargeRequest(
        amount=Money.of(value, "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token=PAYPAGE_ID),
        capture=capture,
        idempotency_key=key(),
    )


@needs_paypage
def test_a_sale_is_captured_then_refunded(
    worldpay: WorldpayGateway, creds: GatewayCredentials
) -> None:
    sale = worldpay.charge(creds, on_paypage())
    assert sale.status is GatewayStatus.CAPTURED

    refund = worldpay.refund(creds, sale.reference, Money.of("1.00", "USD"), key())
    assert refund.status is GatewayStatus.REFUNDED


@needs_paypage
def test_an_authorization_is_captured_in_part_or_reversed(
    worldpay: WorldpayGateway, creds: GatewayCredentials
) -> None:
    auth = worldpay.charge(creds, on_paypage(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    captured = worldpay.capture(creds, auth.reference, Money.of("5.00", "USD"), key())
    assert captured.status is GatewayStatus.CAPTURED

    other = worldpay.charge(creds, on_paypage(capture=False))
    assert worldpay.void(creds, other.reference, key()).status is GatewayStatus.VOIDED


@needs_paypage
def test_a_registered_token_can_be_charged(
    worldpay: WorldpayGateway, creds: GatewayCredentials
) -> None:
    method = worldpay.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=PAYPAGE_ID,
            customer_id="phremote",
            gateway_customer_ref=None,
            idempotency_key=key(),
        ),
    )
    sale = worldpay.charge(
        creds,
        ChargeRequest(
            amount=Money.of("3.00", "USD"),
            source=PaymentSource(
                method_type=MethodType.CARD,
                saved_method_ref=method.method_ref,
                gateway_customer_ref=method.gateway_customer_ref,
            ),
            capture=True,
            idempotency_key=key(),
        ),
    )
    assert sale.status is GatewayStatus.CAPTURED


def test_query_transaction_answers_for_an_id_never_sent(
    worldpay: WorldpayGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=Money.of("1.00", "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token="never-used"),
        capture=True,
        idempotency_key=key(),
    )
    # The sandbox simulates queryTransaction; a found or not-found answer both parse.
    found = worldpay.lookup(creds, request)
    assert found is None or found.reference
