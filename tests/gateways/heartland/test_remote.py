"""The Heartland adapter against Portico's certification host; skipped unless configured.

Environment:
  HEARTLAND_SANDBOX_SECRET_API_KEY   a Portico certification secret key (``skapi_cert_…``)
  HEARTLAND_SANDBOX_TOKEN            optional: a fresh globalpayments.js single-use token
  HEARTLAND_SANDBOX_TOKEN_2          optional: a second fresh token (for the vault test)

Single-use tokens are spent by their first use, so each token test needs its own fresh
token; without them only the lookup test runs.
"""

from __future__ import annotations

import os
import uuid

import httpx
import pytest

from payhub.adapters.gateways.heartland.adapter import HeartlandGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)

SECRET = os.environ.get("HEARTLAND_SANDBOX_SECRET_API_KEY", "")
TOKEN = os.environ.get("HEARTLAND_SANDBOX_TOKEN", "")
TOKEN_2 = os.environ.get("HEARTLAND_SANDBOX_TOKEN_2", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SECRET, reason="HEARTLAND_SANDBOX_SECRET_API_KEY is not set"),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(SECRET, True)


@pytest.fixture(scope="module")
def heartland() -> HeartlandGateway:
    return HeartlandGateway(httpx.Client(timeout=60))


def key() -> str:
    return f"ph{uuid.uuid4().hex}"


@pytest.mark.skipif(not TOKEN, reason="HEARTLAND_SANDBOX_TOKEN is not set")
def test_an_authorization_is_captured_in_part_refunded_and_found(
    heartland: HeartlandGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=Money.of("10.10", "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token=TOKEN),
        capture=False,
        idempotency_key=key(),
    )
    auth = heartland.charge(creds, request)
    assert auth.status is GatewayStatus.AUTHORIZED
    found = heartland.lookup(creds, request)
    assert found is not None
    assert found.reference == auth.reference

    captured = heartland.capture(creds, auth.reference, Money.of("5.00", "USD"), key())
    assert captured.status is GatewayStatus.CAPTURED
    assert heartland.status(creds, auth.reference).status is GatewayStatus.CAPTURED


@pytest.mark.skipif(not TOKEN_2, reason="HEARTLAND_SANDBOX_TOKEN_2 is not set")
def test_a_saved_card_can_be_charged_and_voided(
    heartland: HeartlandGateway, creds: GatewayCredentials
) -> None:
    method = heartland.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=TOKEN_2,
            customer_id="phremote",
            gateway_customer_ref=None,
            idempotency_key=key(),
        ),
    )
    auth = heartland.charge(
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
    assert heartland.void(creds, auth.reference, key()).status is GatewayStatus.VOIDED


def test_find_transactions_answers_for_a_client_txn_id_never_sent(
    heartland: HeartlandGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=Money.of("1.00", "USD"),
        source=PaymentSource(method_type=MethodType.CARD, token="never-used"),
        capture=True,
        idempotency_key=key(),
    )
    assert heartland.lookup(creds, request) is None
