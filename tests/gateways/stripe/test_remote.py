"""The Stripe adapter against Stripe's real test mode. Runs only with credentials.

Set ``STRIPE_SANDBOX_SECRET`` to a test-mode secret key (``sk_test_…`` or ``rk_test_…`` with
write access to PaymentIntents, Refunds, Customers, PaymentMethods and SetupIntents). A live
key is refused: these tests never run against live mode. The ACH tests also need ACH Direct
Debit (``us_bank_account``) turned on in the account's payment-method settings; set
``STRIPE_SANDBOX_ACH=1`` to run them.

Tokens are Stripe's documented test PaymentMethods (https://docs.stripe.com/testing):
``pm_card_visa``, ``pm_card_visa_chargeDeclinedInsufficientFunds``, ``pm_usBankAccount_success``.
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal

import pytest

from payhub.adapters.gateways.stripe.adapter import StripeGateway
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

SECRET = os.environ.get("STRIPE_SANDBOX_SECRET", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SECRET, reason="STRIPE_SANDBOX_SECRET is not set"),
    pytest.mark.skipif(
        bool(SECRET) and not SECRET.startswith(("sk_test_", "rk_test_")),
        reason="STRIPE_SANDBOX_SECRET must be a test-mode key",
    ),
]
needs_ach = pytest.mark.skipif(
    not os.environ.get("STRIPE_SANDBOX_ACH"), reason="STRIPE_SANDBOX_ACH is not set"
)


@pytest.fixture(scope="module")
def gateway() -> StripeGateway:
    return StripeGateway()


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=SECRET, sandbox=True)


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def key() -> str:
    return f"payhub-remote-{uuid.uuid4()}"


def card_charge(amount: Money, token: str = "pm_card_visa", capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount, PaymentSource(MethodType.CARD, token=token), capture, key(), "payhub remote test"
    )


def test_sale_then_partial_and_full_refund(
    gateway: StripeGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card_charge(usd("10.05")))
    assert (sale.status, sale.amount) == (GatewayStatus.CAPTURED, usd("10.05"))

    partial = gateway.refund(creds, sale.reference, usd("5.00"), key())
    assert partial.amount == usd("5.00")
    gateway.refund(creds, sale.reference, usd("5.05"), key())
    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED


def test_authorize_capture_part_and_status(
    gateway: StripeGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card_charge(usd("20.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED

    captured = gateway.capture(creds, auth.reference, usd("12.00"), key())
    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("12.00"))


def test_void_an_authorization(gateway: StripeGateway, creds: GatewayCredentials) -> None:
    auth = gateway.charge(creds, card_charge(usd("7.00"), capture=False))

    assert gateway.void(creds, auth.reference, key()).status is GatewayStatus.VOIDED
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_a_replayed_charge_returns_the_same_payment(
    gateway: StripeGateway, creds: GatewayCredentials
) -> None:
    request = card_charge(usd("3.00"))

    first = gateway.charge(creds, request)
    again = gateway.charge(creds, request)

    assert again.reference == first.reference
    assert again.support.get("idempotent_replayed") == "true"


def test_insufficient_funds_decline(gateway: StripeGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(
            creds, card_charge(usd("10.00"), "pm_card_visa_chargeDeclinedInsufficientFunds")
        )

    assert caught.value.decline_code == "insufficient_funds"


def test_unknown_token(gateway: StripeGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, card_charge(usd("10.00"), "pm_does_not_exist_payhub"))


def test_bad_key(gateway: StripeGateway) -> None:
    wrong = GatewayCredentials(api_secret="sk_test_payhub_not_a_key", sandbox=True)
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(wrong, card_charge(usd("10.00")))


def test_save_a_card_and_charge_it(gateway: StripeGateway, creds: GatewayCredentials) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD, "pm_card_visa", "payhub-remote", None, idempotency_key=key()
        ),
    )
    assert (saved.brand, saved.last4) == ("visa", "4242")

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.00"), source, True, key()))
    assert result.status is GatewayStatus.CAPTURED


@needs_ach
def test_ach_debit(gateway: StripeGateway, creds: GatewayCredentials) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="pm_usBankAccount_success")

    result = gateway.charge(creds, ChargeRequest(usd("15.00"), source, True, key()))

    assert result.status is GatewayStatus.SUBMITTED


@needs_ach
def test_save_a_bank_account_and_debit_it(
    gateway: StripeGateway, creds: GatewayCredentials
) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.BANK_ACCOUNT,
            "pm_usBankAccount_success",
            "payhub-remote",
            None,
            idempotency_key=key(),
        ),
    )
    assert saved.last4 == "6789"

    source = PaymentSource(
        MethodType.BANK_ACCOUNT,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("16.00"), source, True, key()))
    assert result.status is GatewayStatus.SUBMITTED
