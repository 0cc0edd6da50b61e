"""The Global Payments adapter against the real GP-API sandbox; skipped unless credentials
are set.

Environment:
  GLOBAL_PAYMENTS_SANDBOX_APP_ID    the sandbox app's id (developer.globalpay.com, My apps)
  GLOBAL_PAYMENTS_SANDBOX_SECRET    the sandbox app's key
  GLOBAL_PAYMENTS_SANDBOX_TOKEN     optional: a fresh single-use PMT_ id from globalpayments.js

globalpayments.js tokens can only be made in a browser, so the tests without one first store
the sandbox's test Visa 4263 9826 4026 9299 with ``POST /payment-methods`` (a sandbox-only
fixture: payhub itself never sends card numbers) and charge that multi-use payment method.
"""

from __future__ import annotations

import os
import random
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.global_payments.adapter import (
    GP_VERSION,
    SANDBOX_BASE,
    GlobalPaymentsGateway,
)
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)

APP_ID = os.environ.get("GLOBAL_PAYMENTS_SANDBOX_APP_ID", "")
SECRET = os.environ.get("GLOBAL_PAYMENTS_SANDBOX_SECRET", "")
TOKEN = os.environ.get("GLOBAL_PAYMENTS_SANDBOX_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (APP_ID and SECRET),
        reason="GLOBAL_PAYMENTS_SANDBOX_APP_ID/SECRET are not set",
    ),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(SECRET, sandbox=True, fields={"appId": APP_ID})


@pytest.fixture(scope="module")
def gp() -> GlobalPaymentsGateway:
    return GlobalPaymentsGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def stored_card(gp: GlobalPaymentsGateway, creds: GatewayCredentials) -> PaymentSource:
    """A multi-use payment method holding the sandbox test Visa (sandbox only)."""
    bearer = gp._access_token(creds, SANDBOX_BASE, fresh=True)
    reply = httpx.post(
        f"{SANDBOX_BASE}/payment-methods",
        headers={"Authorization": f"Bearer {bearer}", "X-GP-Version": GP_VERSION},
        json={
            "account_name": "tokenization",
            "reference": uuid.uuid4().hex,
            "usage_mode": "MULTIPLE",
            "card": {"number": "4263982640269299", "expiry_month": "12", "expiry_year": "31"},
        },
        timeout=60,
    )
    body = reply.json()
    assert reply.status_code == 200, body.get("error_code")
    return PaymentSource(MethodType.CARD, saved_method_ref=body["id"], gateway_customer_ref="c")


def amount() -> Money:
    return Money.of(Decimal(random.randint(1000, 9999)) / 100, "USD")


def test_wrong_key_is_rejected(gp: GlobalPaymentsGateway) -> None:
    wrong = GatewayCredentials("not-the-key", True, {"appId": APP_ID})
    with pytest.raises(GatewayCredentialsRejected):
        gp.status(wrong, "TRN_none")


def test_sale_then_refund_and_a_retry_is_replayed(
    gp: GlobalPaymentsGateway, creds: GatewayCredentials, stored_card: PaymentSource
) -> None:
    request = ChargeRequest(amount(), stored_card, True, uuid.uuid4().hex)
    sale = gp.charge(creds, request)
    assert sale.status is GatewayStatus.CAPTURED
    assert gp.charge(creds, request).reference == sale.reference

    refund = gp.refund(creds, sale.reference, request.amount, uuid.uuid4().hex)
    assert refund.status is GatewayStatus.REFUNDED


def test_authorize_capture_part_and_void(
    gp: GlobalPaymentsGateway, creds: GatewayCredentials, stored_card: PaymentSource
) -> None:
    auth = gp.charge(creds, ChargeRequest(amount(), stored_card, False, uuid.uuid4().hex))
    assert auth.status is GatewayStatus.AUTHORIZED
    captured = gp.capture(creds, auth.reference, Money.of("5.00", "USD"), uuid.uuid4().hex)
    assert captured.status is GatewayStatus.CAPTURED

    other = gp.charge(creds, ChargeRequest(amount(), stored_card, False, uuid.uuid4().hex))
    assert gp.void(creds, other.reference, uuid.uuid4().hex).status is GatewayStatus.VOIDED
    assert gp.status(creds, other.reference).status is GatewayStatus.VOIDED


@pytest.mark.skipif(not TOKEN, reason="GLOBAL_PAYMENTS_SANDBOX_TOKEN is not set")
def test_save_a_js_token(gp: GlobalPaymentsGateway, creds: GatewayCredentials) -> None:
    saved = gp.save_payment_method(creds, SaveMethodRequest(MethodType.CARD, TOKEN, "c", None))
    assert saved.last4
