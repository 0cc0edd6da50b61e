"""The PayTrace adapter against PayTrace's real sandbox; skipped unless credentials are set.

Environment:
  PAYTRACE_SANDBOX_USERNAME       the API user of a PayTrace sandbox account
  PAYTRACE_SANDBOX_PASSWORD       its password (payhub's apiSecret)
  PAYTRACE_SANDBOX_INTEGRATOR_ID  the integrator_id PayTrace issued with the sandbox
  PAYTRACE_SANDBOX_PROTECT_TOKEN  optional: a fresh Protect.js "hpf_token|enc_key" (one use)

Protect.js tokens can only be made in a browser, so the card tests without a token first
vault PayTrace's documented test Visa 4111 1111 1111 1111 with ``customer/create`` (a
sandbox-only fixture: payhub itself never sends card numbers) and charge that profile.
These tests also settle the open questions in docs/gateways.md: the export field names
read by ``status``, and ``including_text`` in ``export/by_date_range`` for ``lookup``.
"""

from __future__ import annotations

import os
import random
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.paytrace.adapter import SANDBOX_HOST, TOKEN_PATH, PayTraceGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayStatus,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
)

USERNAME = os.environ.get("PAYTRACE_SANDBOX_USERNAME", "")
PASSWORD = os.environ.get("PAYTRACE_SANDBOX_PASSWORD", "")
INTEGRATOR_ID = os.environ.get("PAYTRACE_SANDBOX_INTEGRATOR_ID", "")
PROTECT_TOKEN = os.environ.get("PAYTRACE_SANDBOX_PROTECT_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (USERNAME and PASSWORD and INTEGRATOR_ID),
        reason="PAYTRACE_SANDBOX_USERNAME, _PASSWORD and _INTEGRATOR_ID are not set",
    ),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(
        api_secret=PASSWORD,
        sandbox=True,
        fields={"username": USERNAME, "integratorId": INTEGRATOR_ID},
    )


@pytest.fixture(scope="module")
def paytrace() -> PayTraceGateway:
    return PayTraceGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def test_card_profile() -> str:
    """A customer profile holding PayTrace's test Visa (sandbox only)."""
    token = httpx.post(
        SANDBOX_HOST + TOKEN_PATH,
        data={"grant_type": "password", "username": USERNAME, "password": PASSWORD},
        timeout=60,
    ).json()["access_token"]
    profile = f"phtest-{uuid.uuid4().hex[:20]}"
    reply = httpx.post(
        SANDBOX_HOST + "/v1/customer/create",
        json={
            "customer_id": profile,
            "credit_card": {
                "number": "4111111111111111",
                "expiration_month": 12,
                "expiration_year": 2030,
            },
            "billing_address": {"name": "payhub remote test"},
            "integrator_id": INTEGRATOR_ID,
        },
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    ).json()
    assert reply.get("success") is True, reply.get("status_message")
    return profile


def amount(low: str = "1.00") -> Money:
    return Money.of(Decimal(low) + Decimal(random.randint(0, 8999)) / 100, "USD")


def on_profile(profile: str, value: Money, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount=value,
        source=PaymentSource(
            method_type=MethodType.CARD, saved_method_ref=profile, gateway_customer_ref=profile
        ),
        capture=capture,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )


def key() -> str:
    return f"phtest_{uuid.uuid4().hex[:24]}"


def test_a_sale_is_captured_found_by_lookup_and_refunded(
    paytrace: PayTraceGateway, creds: GatewayCredentials, test_card_profile: str
) -> None:
    value = amount("5.00")
    request = on_profile(test_card_profile, value)
    sale = paytrace.charge(creds, request)
    assert sale.status is GatewayStatus.CAPTURED

    status = paytrace.status(creds, sale.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, value)
    found = paytrace.lookup(creds, request)
    assert found is not None
    assert found.reference == sale.reference

    part = Money.of("1.00", "USD")
    refund = paytrace.refund(creds, sale.reference, part, key())
    assert (refund.status, refund.amount) == (GatewayStatus.REFUNDED, part)


def test_an_authorization_is_captured_in_part(
    paytrace: PayTraceGateway, creds: GatewayCredentials, test_card_profile: str
) -> None:
    auth = paytrace.charge(creds, on_profile(test_card_profile, amount("5.00"), capture=False))
    assert paytrace.status(creds, auth.reference).status is GatewayStatus.AUTHORIZED

    part = Money.of("2.00", "USD")
    captured = paytrace.capture(creds, auth.reference, part, key())

    assert captured.status is GatewayStatus.CAPTURED
    assert paytrace.status(creds, auth.reference).status is GatewayStatus.CAPTURED


def test_an_authorization_is_voided(
    paytrace: PayTraceGateway, creds: GatewayCredentials, test_card_profile: str
) -> None:
    auth = paytrace.charge(creds, on_profile(test_card_profile, amount(), capture=False))

    assert paytrace.void(creds, auth.reference, key()).status is GatewayStatus.VOIDED
    assert paytrace.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_a_wrong_password_is_rejected(paytrace: PayTraceGateway, test_card_profile: str) -> None:
    wrong = GatewayCredentials(
        api_secret="not-the-password",
        sandbox=True,
        fields={"username": USERNAME, "integratorId": INTEGRATOR_ID},
    )

    with pytest.raises(GatewayCredentialsRejected):
        paytrace.charge(wrong, on_profile(test_card_profile, amount()))


def test_an_unknown_protect_token_is_an_invalid_payment_method(
    paytrace: PayTraceGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=amount(),
        source=PaymentSource(method_type=MethodType.CARD, token="not-a-token|not-a-key"),
        capture=True,
        idempotency_key=key(),
    )

    with pytest.raises(PaymentMethodInvalid):
        paytrace.charge(creds, request)


@pytest.mark.skipif(not PROTECT_TOKEN, reason="PAYTRACE_SANDBOX_PROTECT_TOKEN is not set")
def test_a_protect_token_is_vaulted_and_charged(
    paytrace: PayTraceGateway, creds: GatewayCredentials
) -> None:
    method = paytrace.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=PROTECT_TOKEN,
            customer_id="cus_remote_test",
            gateway_customer_ref=None,
            idempotency_key=key(),
        ),
    )
    assert method.last4 is not None

    result = paytrace.charge(creds, on_profile(method.method_ref, amount()))

    assert result.status is GatewayStatus.CAPTURED
