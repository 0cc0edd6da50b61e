"""The NMI adapter against NMI's real sandbox; skipped unless credentials are set.

Environment:
  NMI_SANDBOX_SECRET        the private security key of an NMI sandbox account
                            (sandbox.nmi.com; a sandbox account is always in test mode)
  NMI_SANDBOX_CARD_TOKEN    optional: a fresh Collect.js card token (single use)
  NMI_SANDBOX_CHECK_TOKEN   optional: a fresh Collect.js check token (single use), for ACH

Collect.js tokens can only be made in a browser, so the card tests without a token
first vault NMI's documented test card 4111 1111 1111 1111 directly (a sandbox-only
fixture: payhub itself never sends card numbers) and charge that vault record.
Declines use NMI's test-mode trigger, an amount under 1.00
(https://docs.nmi.com/docs/integration-guide-test-and-deploy,
https://docs.nmi.com/reference/process.md). Amounts carry random cents so that NMI's
duplicate check does not trip over an earlier run.
"""

from __future__ import annotations

import os
import random
import uuid
from decimal import Decimal
from urllib.parse import parse_qsl

import httpx
import pytest

from payhub.adapters.gateways.nmi.adapter import SANDBOX_HOST, TRANSACT_PATH, NmiGateway
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

SECRET = os.environ.get("NMI_SANDBOX_SECRET", "")
CARD_TOKEN = os.environ.get("NMI_SANDBOX_CARD_TOKEN", "")
CHECK_TOKEN = os.environ.get("NMI_SANDBOX_CHECK_TOKEN", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SECRET, reason="NMI_SANDBOX_SECRET is not set"),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=SECRET, sandbox=True)


@pytest.fixture(scope="module")
def nmi() -> NmiGateway:
    return NmiGateway(httpx.Client(timeout=60))


@pytest.fixture(scope="module")
def test_card_vault_id() -> str:
    """A Customer Vault record holding NMI's documented test Visa (sandbox only)."""
    reply = httpx.post(
        SANDBOX_HOST + TRANSACT_PATH,
        data={
            "security_key": SECRET,
            "customer_vault": "add_customer",
            "ccnumber": "4111111111111111",
            "ccexp": "1030",
        },
        timeout=60,
    )
    fields = dict(parse_qsl(reply.text))
    assert fields.get("response") == "1", fields.get("responsetext")
    return fields["customer_vault_id"]


def amount(low: str = "1.00") -> Money:
    cents = Decimal(random.randint(0, 8999)) / 100
    return Money.of(Decimal(low) + cents, "USD")


def on_card(vault_id: str, value: Money, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount=value,
        source=PaymentSource(
            method_type=MethodType.CARD, saved_method_ref=vault_id, gateway_customer_ref=vault_id
        ),
        capture=capture,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )


def test_a_sale_is_captured_then_refunded(
    nmi: NmiGateway, creds: GatewayCredentials, test_card_vault_id: str
) -> None:
    value = amount("5.00")
    sale = nmi.charge(creds, on_card(test_card_vault_id, value))
    assert sale.status is GatewayStatus.CAPTURED

    status = nmi.status(creds, sale.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, value)

    part = Money.of("1.00", "USD")
    refund = nmi.refund(creds, sale.reference, part, f"phtest_{uuid.uuid4().hex[:24]}")
    assert (refund.status, refund.amount) == (GatewayStatus.REFUNDED, part)


def test_an_authorization_is_captured_in_part(
    nmi: NmiGateway, creds: GatewayCredentials, test_card_vault_id: str
) -> None:
    value = amount("5.00")
    auth = nmi.charge(creds, on_card(test_card_vault_id, value, capture=False))
    assert nmi.status(creds, auth.reference).status is GatewayStatus.AUTHORIZED

    part = Money.of("2.00", "USD")
    captured = nmi.capture(creds, auth.reference, part, f"phtest_{uuid.uuid4().hex[:24]}")

    assert captured.status is GatewayStatus.CAPTURED
    after = nmi.status(creds, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, part)


def test_an_authorization_is_voided(
    nmi: NmiGateway, creds: GatewayCredentials, test_card_vault_id: str
) -> None:
    auth = nmi.charge(creds, on_card(test_card_vault_id, amount(), capture=False))

    voided = nmi.void(creds, auth.reference, f"phtest_{uuid.uuid4().hex[:24]}")

    assert voided.status is GatewayStatus.VOIDED
    assert nmi.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_a_retry_returns_the_original_charge(
    nmi: NmiGateway, creds: GatewayCredentials, test_card_vault_id: str
) -> None:
    request = on_card(test_card_vault_id, amount())

    first = nmi.charge(creds, request)
    again = nmi.charge(creds, request)

    assert again.reference == first.reference


def test_an_amount_under_one_dollar_declines(
    nmi: NmiGateway, creds: GatewayCredentials, test_card_vault_id: str
) -> None:
    with pytest.raises(Declined) as caught:
        nmi.charge(creds, on_card(test_card_vault_id, Money.of("0.50", "USD")))

    assert caught.value.decline_code in ("generic_decline", "processing_error")


def test_a_wrong_security_key_is_rejected(nmi: NmiGateway, test_card_vault_id: str) -> None:
    wrong = GatewayCredentials(api_secret="not-a-real-nmi-key-0000000000000", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected):
        nmi.charge(wrong, on_card(test_card_vault_id, amount()))


def test_an_unknown_token_is_an_invalid_payment_method(
    nmi: NmiGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=amount(),
        source=PaymentSource(method_type=MethodType.CARD, token="00000000-000000-000000-000000"),
        capture=True,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )

    with pytest.raises(PaymentMethodInvalid):
        nmi.charge(creds, request)


@pytest.mark.skipif(not CARD_TOKEN, reason="NMI_SANDBOX_CARD_TOKEN is not set")
def test_a_card_token_is_vaulted_and_charged(nmi: NmiGateway, creds: GatewayCredentials) -> None:
    method = nmi.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=CARD_TOKEN,
            customer_id="cus_remote_test",
            gateway_customer_ref=None,
        ),
    )
    assert method.last4 is not None

    result = nmi.charge(creds, on_card(method.method_ref, amount()))

    assert result.status is GatewayStatus.CAPTURED


@pytest.mark.skipif(not CHECK_TOKEN, reason="NMI_SANDBOX_CHECK_TOKEN is not set")
def test_an_ach_debit_is_submitted(nmi: NmiGateway, creds: GatewayCredentials) -> None:
    request = ChargeRequest(
        amount=amount(),
        source=PaymentSource(method_type=MethodType.BANK_ACCOUNT, token=CHECK_TOKEN),
        capture=True,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )

    result = nmi.charge(creds, request)

    assert result.status is GatewayStatus.SUBMITTED
    assert nmi.status(creds, result.reference).status in (
        GatewayStatus.SUBMITTED,
        GatewayStatus.CAPTURED,
    )
