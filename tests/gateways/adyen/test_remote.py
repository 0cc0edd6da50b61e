"""The Adyen adapter against Adyen's real test environment. Runs only with credentials.

Set ``ADYEN_SANDBOX_API_KEY`` and ``ADYEN_SANDBOX_MERCHANT_ACCOUNT`` (a test company's API key
with the Checkout webservice role, and its ecommerce merchant account). Cards are Adyen's
documented unencrypted test values (``test_``-prefixed fields, accepted only in the test
environment); refusals are triggered through the holder name
(https://docs.adyen.com/development-resources/testing/result-codes). Modifications are only
*received* synchronously: their outcome arrives by webhook, which these tests cannot see.
"""

from __future__ import annotations

import json
import os
import uuid
from decimal import Decimal

import pytest

from payhub.adapters.gateways.adyen.adapter import AdyenGateway
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

API_KEY = os.environ.get("ADYEN_SANDBOX_API_KEY", "")
MERCHANT = os.environ.get("ADYEN_SANDBOX_MERCHANT_ACCOUNT", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (API_KEY and MERCHANT),
        reason="ADYEN_SANDBOX_API_KEY/ADYEN_SANDBOX_MERCHANT_ACCOUNT are not set",
    ),
]


@pytest.fixture(scope="module")
def gateway() -> AdyenGateway:
    return AdyenGateway()


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(API_KEY, sandbox=True, fields={"merchantAccount": MERCHANT})


def adyen_card(holder: str = "Ada Lovelace") -> str:
    return json.dumps(
        {
            "type": "scheme",
            "encryptedCardNumber": "test_4111111111111111",
            "encryptedExpiryMonth": "test_03",
            "encryptedExpiryYear": "test_2030",
            "encryptedSecurityCode": "test_737",
            "holderName": holder,
        }
    )


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def key() -> str:
    return f"phr-{uuid.uuid4()}"


def charge(amount: str, capture: bool = True, holder: str = "Ada Lovelace") -> ChargeRequest:
    return ChargeRequest(
        usd(amount), PaymentSource(MethodType.CARD, token=adyen_card(holder)), capture, key()
    )


def test_sale_and_refunds(gateway: AdyenGateway, creds: GatewayCredentials) -> None:
    sale = gateway.charge(creds, charge("10.05"))
    assert sale.status is GatewayStatus.CAPTURED

    assert gateway.refund(creds, sale.reference, usd("5.00"), key()).status is GatewayStatus.PENDING


def test_authorize_capture_part_and_cancel(
    gateway: AdyenGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, charge("20.00", capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    gateway.capture(creds, auth.reference, usd("12.00"), key())

    other = gateway.charge(creds, charge("7.00", capture=False))
    assert gateway.void(creds, other.reference, key()).support["adyen_status"] == "received"


def test_a_retry_gets_the_first_payment(gateway: AdyenGateway, creds: GatewayCredentials) -> None:
    request = charge("3.00")
    assert gateway.charge(creds, request).reference == gateway.charge(creds, request).reference


def test_not_enough_balance(gateway: AdyenGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(creds, charge("10.00", holder="NOT_ENOUGH_BALANCE"))
    assert caught.value.decline_code == "insufficient_funds"


def test_unreadable_card(gateway: AdyenGateway, creds: GatewayCredentials) -> None:
    token = json.dumps({"type": "scheme", "encryptedCardNumber": "adyenjs_0_1_25$nonsense"})
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(
            creds,
            ChargeRequest(usd("1.00"), PaymentSource(MethodType.CARD, token=token), True, key()),
        )


def test_bad_key(gateway: AdyenGateway) -> None:
    wrong = GatewayCredentials("AQE-not-a-key", sandbox=True, fields={"merchantAccount": MERCHANT})
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(wrong, charge("1.00"))


def test_store_and_charge(gateway: AdyenGateway, creds: GatewayCredentials) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD,
            adyen_card(),
            f"phr-{uuid.uuid4().hex[:12]}",
            None,
            idempotency_key=key(),
        ),
    )
    assert saved.last4 == "1111"
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.00"), source, True, key()))
    assert result.status is GatewayStatus.CAPTURED
