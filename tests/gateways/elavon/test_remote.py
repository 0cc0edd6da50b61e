"""The Elavon adapter against Converge's demo host; skipped unless configured.

Environment:
  ELAVON_SANDBOX_MERCHANT_ID   the demo account id (ssl_merchant_id)
  ELAVON_SANDBOX_USER_ID       the API user (ssl_user_id)
  ELAVON_SANDBOX_PIN           the terminal PIN (ssl_pin)
  ELAVON_SANDBOX_TOKEN         optional: a fresh Checkout.js ``ssl_token``
  ELAVON_SANDBOX_TOKEN_2       optional: a second fresh token (for the vault test)

Demo accounts are issued by Elavon on request; without tokens only the lookup test runs.
"""

from __future__ import annotations

import os
import uuid

import httpx
import pytest

from payhub.adapters.gateways.elavon.adapter import ElavonGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)

MERCHANT_ID = os.environ.get("ELAVON_SANDBOX_MERCHANT_ID", "")
USER_ID = os.environ.get("ELAVON_SANDBOX_USER_ID", "")
PIN = os.environ.get("ELAVON_SANDBOX_PIN", "")
TOKEN = os.environ.get("ELAVON_SANDBOX_TOKEN", "")
TOKEN_2 = os.environ.get("ELAVON_SANDBOX_TOKEN_2", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (MERCHANT_ID and USER_ID and PIN),
        reason="ELAVON_SANDBOX_MERCHANT_ID, _USER_ID and _PIN are not set",
    ),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(PIN, True, {"merchantId": MERCHANT_ID, "userId": USER_ID})


@pytest.fixture(scope="module")
def elavon() -> ElavonGateway:
    return ElavonGateway(httpx.Client(timeout=60))


def key() -> str:
    return f"ph{uuid.uuid4().hex[:23]}"


@pytest.mark.skipif(not TOKEN, reason="ELAVON_SANDBOX_TOKEN is not set")
def test_an_authorization_is_completed_in_part_and_found(
    elavon: ElavonGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=Money.of("10.10", "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token=TOKEN),
        capture=False,
        idempotency_key=key(),
    )
    auth = elavon.charge(creds, request)
    assert auth.status is GatewayStatus.AUTHORIZED
    found = elavon.lookup(creds, request)
    assert found is not None
    assert found.reference == auth.reference

    captured = elavon.capture(creds, auth.reference, Money.of("5.00", "USD"), key())
    assert captured.status is GatewayStatus.CAPTURED
    assert elavon.status(creds, auth.reference).status is GatewayStatus.CAPTURED


@pytest.mark.skipif(not TOKEN_2, reason="ELAVON_SANDBOX_TOKEN_2 is not set")
def test_a_saved_card_can_be_authorized_and_voided(
    elavon: ElavonGateway, creds: GatewayCredentials
) -> None:
    method = elavon.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=TOKEN_2,
            customer_id="phremote",
            gateway_customer_ref=None,
            idempotency_key=key(),
        ),
    )
    auth = elavon.charge(
        creds,
        ChargeRequest(
            amount=Money.of("3.00", "USD"),
            source=PaymentSource(
                method_type=MethodType.CARD,
                saved_method_ref=method.method_ref,
                gateway_customer_ref=method.gateway_customer_ref,
            ),
            capture=False,
            idempotency_key=key(),
        ),
    )
    assert elavon.void(creds, auth.reference, key()).status is GatewayStatus.VOIDED


def test_txnquery_answers_for_a_merchant_txn_id_never_sent(
    elavon: ElavonGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=Money.of("1.00", "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token="never-used"),
        capture=True,
        idempotency_key=key(),
    )
    assert elavon.lookup(creds, request) is None
