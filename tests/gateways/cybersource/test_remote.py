"""The CyberSource adapter against CyberSource's real test environment; skipped unless
credentials are set.

Environment:
  CYBERSOURCE_SANDBOX_MERCHANT_ID   the test merchant ID (ebc2test.cybersource.com)
  CYBERSOURCE_SANDBOX_KEY_ID        the shared secret key id (Key Management, REST Shared Secret)
  CYBERSOURCE_SANDBOX_SECRET        the shared secret (base64, as the Business Center shows it)
  CYBERSOURCE_SANDBOX_TOKEN         optional: a fresh Microform transient token (single use)

Microform tokens can only be made in a browser, so the tests without one first store
CyberSource's documented test Visa 4111 1111 1111 1111 in TMS with a direct zero-amount
authorization (a sandbox-only fixture: payhub itself never sends card numbers) and charge that
saved instrument. Transaction Search is not real-time, so the lookup test polls for a while.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.cybersource.adapter import (
    SANDBOX_HOST,
    CyberSourceGateway,
    signed_headers,
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

MERCHANT_ID = os.environ.get("CYBERSOURCE_SANDBOX_MERCHANT_ID", "")
KEY_ID = os.environ.get("CYBERSOURCE_SANDBOX_KEY_ID", "")
SECRET = os.environ.get("CYBERSOURCE_SANDBOX_SECRET", "")
TOKEN = os.environ.get("CYBERSOURCE_SANDBOX_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (MERCHANT_ID and KEY_ID and SECRET),
        reason="CYBERSOURCE_SANDBOX_MERCHANT_ID/KEY_ID/SECRET are not set",
    ),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(
        SECRET, sandbox=True, fields={"merchantId": MERCHANT_ID, "keyId": KEY_ID}
    )


@pytest.fixture(scope="module")
def cybersource() -> CyberSourceGateway:
    return CyberSourceGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def saved_card() -> PaymentSource:
    """A TMS customer + payment instrument holding the test Visa (sandbox only)."""
    body = json.dumps(
        {
            "clientReferenceInformation": {"code": f"payhub-remote-{uuid.uuid4().hex[:12]}"},
            "processingInformation": {
                "capture": False,
                "actionList": ["TOKEN_CREATE"],
                "actionTokenTypes": ["customer", "paymentInstrument", "instrumentIdentifier"],
            },
            "paymentInformation": {
                "card": {
                    "number": "4111111111111111",
                    "expirationMonth": "12",
                    "expirationYear": "2031",
                }
            },
            "orderInformation": {
                "amountDetails": {"totalAmount": "0.00", "currency": "USD"},
                "billTo": {
                    "firstName": "Ada",
                    "lastName": "Lovelace",
                    "address1": "1 Market St",
                    "locality": "San Francisco",
                    "administrativeArea": "CA",
                    "postalCode": "94105",
                    "country": "US",
                    "email": "test@cybs.com",
                },
            },
        }
    ).encode()
    path = "/pts/v2/payments"
    headers = signed_headers(
        merchant_id=MERCHANT_ID,
        key_id=KEY_ID,
        secret=SECRET,
        host=SANDBOX_HOST,
        method="POST",
        path=path,
        body=body,
        date=datetime.now(UTC),
    )
    headers["Content-Type"] = "application/json;charset=utf-8"
    reply = httpx.post(f"https://{SANDBOX_HOST}{path}", content=body, headers=headers, timeout=60)
    answer = reply.json()
    assert answer.get("status") == "AUTHORIZED", answer.get("status")
    tokens = answer["tokenInformation"]
    return PaymentSource(
        MethodType.CARD,
        saved_method_ref=tokens["paymentInstrument"]["id"],
        gateway_customer_ref=tokens["customer"]["id"],
    )


def amount() -> Money:
    return Money.of(Decimal(random.randint(1000, 9999)) / 100, "USD")


def test_wrong_secret_is_rejected(cybersource: CyberSourceGateway) -> None:
    wrong = GatewayCredentials(
        "d3JvbmctYnV0LWJhc2U2NA==", True, {"merchantId": MERCHANT_ID, "keyId": KEY_ID}
    )
    with pytest.raises(GatewayCredentialsRejected):
        cybersource.status(wrong, "0000000000000000000000")


def test_sale_refund_and_status(
    cybersource: CyberSourceGateway, creds: GatewayCredentials, saved_card: PaymentSource
) -> None:
    money = amount()
    sale = cybersource.charge(creds, ChargeRequest(money, saved_card, True, uuid.uuid4().hex))
    assert sale.status is GatewayStatus.CAPTURED

    refund = cybersource.refund(creds, sale.reference, money, uuid.uuid4().hex)
    assert refund.status is GatewayStatus.REFUNDED


def test_authorize_capture_part_and_void(
    cybersource: CyberSourceGateway, creds: GatewayCredentials, saved_card: PaymentSource
) -> None:
    auth = cybersource.charge(creds, ChargeRequest(amount(), saved_card, False, uuid.uuid4().hex))
    assert auth.status is GatewayStatus.AUTHORIZED
    captured = cybersource.capture(creds, auth.reference, Money.of("5.00", "USD"), "cap")
    assert captured.status is GatewayStatus.CAPTURED

    other = cybersource.charge(creds, ChargeRequest(amount(), saved_card, False, uuid.uuid4().hex))
    for _ in range(30):  # Transaction Details needs a moment before it knows the payment
        try:
            voided = cybersource.void(creds, other.reference, uuid.uuid4().hex)
            break
        except Exception:
            time.sleep(2)
    else:
        pytest.fail("the authorization never became visible to Transaction Details")
    assert voided.status is GatewayStatus.VOIDED


def test_lookup_finds_a_sale_by_its_key(
    cybersource: CyberSourceGateway, creds: GatewayCredentials, saved_card: PaymentSource
) -> None:
    request = ChargeRequest(amount(), saved_card, True, uuid.uuid4().hex)
    sale = cybersource.charge(creds, request)
    for _ in range(30):
        found = cybersource.lookup(creds, request)
        if found is not None:
            assert found.reference == sale.reference
            return
        time.sleep(5)
    pytest.fail("Transaction Search never found the sale by clientReferenceInformation.code")


@pytest.mark.skipif(not TOKEN, reason="CYBERSOURCE_SANDBOX_TOKEN is not set")
def test_save_a_microform_token(cybersource: CyberSourceGateway, creds: GatewayCredentials) -> None:
    saved = cybersource.save_payment_method(
        creds, SaveMethodRequest(MethodType.CARD, TOKEN, "cus_remote", None, idempotency_key="s")
    )
    assert saved.last4
