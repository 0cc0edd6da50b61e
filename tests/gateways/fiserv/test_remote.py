"""The Fiserv CommerceHub adapter against the real certification environment; skipped unless
credentials are set.

Environment:
  FISERV_SANDBOX_API_KEY       the developer-portal app's API key
  FISERV_SANDBOX_SECRET        the app's API secret
  FISERV_SANDBOX_MERCHANT_ID   the certification merchant id
  FISERV_SANDBOX_TERMINAL_ID   the certification terminal id
  FISERV_SANDBOX_SESSION       optional: a fresh hosted-fields session id (single use)

Hosted sessions can only be made in a browser, so the tests without one first make a TransArmor
token from Fiserv's documented test Visa 4005 5500 0000 0019 with a direct ``/payments-vas/v1/
tokens`` call (a sandbox-only fixture: payhub itself never sends card numbers) and charge it.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.fiserv.adapter import SANDBOX_BASE, FiservGateway, signature
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

API_KEY = os.environ.get("FISERV_SANDBOX_API_KEY", "")
SECRET = os.environ.get("FISERV_SANDBOX_SECRET", "")
MERCHANT_ID = os.environ.get("FISERV_SANDBOX_MERCHANT_ID", "")
TERMINAL_ID = os.environ.get("FISERV_SANDBOX_TERMINAL_ID", "")
SESSION = os.environ.get("FISERV_SANDBOX_SESSION", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (API_KEY and SECRET and MERCHANT_ID and TERMINAL_ID),
        reason="FISERV_SANDBOX_API_KEY/SECRET/MERCHANT_ID/TERMINAL_ID are not set",
    ),
]
FIELDS = {"apiKey": API_KEY, "merchantId": MERCHANT_ID, "terminalId": TERMINAL_ID}


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(SECRET, sandbox=True, fields=FIELDS)


@pytest.fixture(scope="module")
def fiserv() -> FiservGateway:
    return FiservGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def stored_card() -> PaymentSource:
    """A TransArmor token for the test Visa (sandbox only)."""
    body = json.dumps(
        {
            "source": {
                "sourceType": "PaymentCard",
                "card": {
                    "cardData": "4005550000000019",
                    "expirationMonth": "02",
                    "expirationYear": "2035",
                },
            },
            "merchantDetails": {"merchantId": MERCHANT_ID, "terminalId": TERMINAL_ID},
        },
        separators=(",", ":"),
    )
    request_id, timestamp = str(uuid.uuid4()), str(int(time.time() * 1000))
    reply = httpx.post(
        f"{SANDBOX_BASE}/payments-vas/v1/tokens",
        content=body.encode(),
        headers={
            "Content-Type": "application/json",
            "Api-Key": API_KEY,
            "Client-Request-Id": request_id,
            "Timestamp": timestamp,
            "Auth-Token-Type": "HMAC",
            "Authorization": signature(SECRET, API_KEY, request_id, timestamp, body),
        },
        timeout=60,
    )
    token = reply.json()["paymentTokens"][0]["tokenData"]
    return PaymentSource(
        MethodType.CARD, saved_method_ref=f"{token}:02:2035", gateway_customer_ref="c"
    )


def amount() -> Money:
    return Money.of(Decimal(random.randint(1000, 9999)) / 100, "USD")


def test_wrong_secret_is_rejected(fiserv: FiservGateway) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        fiserv.status(GatewayCredentials("wrong-secret", True, FIELDS), "1")


def test_sale_refund_and_an_idempotent_retry(
    fiserv: FiservGateway, creds: GatewayCredentials, stored_card: PaymentSource
) -> None:
    request = ChargeRequest(amount(), stored_card, True, uuid.uuid4().hex)
    sale = fiserv.charge(creds, request)
    assert sale.status is GatewayStatus.CAPTURED
    assert fiserv.charge(creds, request).reference == sale.reference

    refund = fiserv.refund(creds, sale.reference, request.amount, uuid.uuid4().hex)
    assert refund.status is GatewayStatus.REFUNDED


def test_authorize_capture_part_and_cancel(
    fiserv: FiservGateway, creds: GatewayCredentials, stored_card: PaymentSource
) -> None:
    auth = fiserv.charge(creds, ChargeRequest(amount(), stored_card, False, uuid.uuid4().hex))
    assert auth.status is GatewayStatus.AUTHORIZED
    captured = fiserv.capture(creds, auth.reference, Money.of("5.00", "USD"), uuid.uuid4().hex)
    assert captured.status is GatewayStatus.CAPTURED

    other = fiserv.charge(creds, ChargeRequest(amount(), stored_card, False, uuid.uuid4().hex))
    assert fiserv.void(creds, other.reference, uuid.uuid4().hex).status is GatewayStatus.VOIDED


@pytest.mark.skipif(not SESSION, reason="FISERV_SANDBOX_SESSION is not set")
def test_save_a_hosted_session(fiserv: FiservGateway, creds: GatewayCredentials) -> None:
    saved = fiserv.save_payment_method(
        creds, SaveMethodRequest(MethodType.CARD, SESSION, "c", None)
    )
    assert saved.last4
