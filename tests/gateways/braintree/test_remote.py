"""The Braintree adapter against Braintree's real sandbox. Runs only with credentials.

Set ``BRAINTREE_SANDBOX_PUBLIC_KEY`` and ``BRAINTREE_SANDBOX_SECRET`` (the private key) of a
sandbox API key, and optionally ``BRAINTREE_SANDBOX_MERCHANT_ID``. Only the sandbox host is ever
called. The ACH test also needs ACH Direct Debit enabled on the sandbox merchant account: set
``BRAINTREE_SANDBOX_ACH=1`` to run it. The yen test runs only if the account has a JPY merchant
account. The retry test relies on duplicate transaction checking, which is on by default.

Test values are Braintree's documented sandbox values
(https://developer.paypal.com/braintree/docs/reference/general/testing/python): the nonces
``fake-valid-nonce``, ``fake-valid-visa-nonce``, ``fake-consumed-nonce``,
``fake-processor-declined-visa-nonce``; amount 2001.00 is declined with 2001 (insufficient
funds). Settlement is forced with the sandbox-only ``sandboxSettleTransaction`` mutation. The
bank account (routing 011000015, account 1000000000) follows the ACH testing guide; check it
against the current guide if the ACH test fails on verification.
"""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.braintree.adapter import API_VERSION, SANDBOX_URL, BraintreeGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
)

PUBLIC_KEY = os.environ.get("BRAINTREE_SANDBOX_PUBLIC_KEY", "")
SECRET = os.environ.get("BRAINTREE_SANDBOX_SECRET", "")
MERCHANT_ID = os.environ.get("BRAINTREE_SANDBOX_MERCHANT_ID", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (PUBLIC_KEY and SECRET),
        reason="BRAINTREE_SANDBOX_PUBLIC_KEY and BRAINTREE_SANDBOX_SECRET are not set",
    ),
]

CREDS = GatewayCredentials(
    api_secret=SECRET,
    sandbox=True,
    fields={"publicKey": PUBLIC_KEY, "merchantId": MERCHANT_ID},
)


@pytest.fixture(scope="module")
def gateway() -> Iterator[BraintreeGateway]:
    with httpx.Client(timeout=60) as client:
        yield BraintreeGateway(client)


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def key() -> str:
    return f"payhub-remote-{uuid.uuid4().hex[:20]}"


def card(amount: Money, token: str = "fake-valid-nonce", capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount=amount,
        source=PaymentSource(MethodType.CARD, token=token),
        capture=capture,
        idempotency_key=key(),
    )


def graphql(query: str, variables: dict[str, Any]) -> dict[str, Any]:
    """A raw sandbox call, for what payhub never does itself (forcing settlement, tokenizing)."""
    auth = base64.b64encode(f"{PUBLIC_KEY}:{SECRET}".encode()).decode()
    response = httpx.post(
        SANDBOX_URL,
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Basic {auth}", "Braintree-Version": API_VERSION},
        timeout=60,
    )
    body: dict[str, Any] = response.json()
    assert not body.get("errors"), body.get("errors")
    return body["data"]


def settle(reference: str) -> None:
    graphql(
        "mutation Settle($input: SandboxSettleTransactionInput!) {"
        " sandboxSettleTransaction(input: $input) { transaction { id status } } }",
        {"input": {"transactionId": reference}},
    )


def test_sale_then_refund_before_and_after_settlement(gateway: BraintreeGateway) -> None:
    sale = gateway.charge(CREDS, card(usd("10.05")))
    assert sale.status is GatewayStatus.CAPTURED
    assert sale.amount.minor_units == 1005
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.CAPTURED

    settle(sale.reference)
    part = gateway.refund(CREDS, sale.reference, usd("4.00"), key())
    rest = gateway.refund(CREDS, sale.reference, usd("6.05"), key())
    assert part.status is GatewayStatus.REFUNDED
    assert rest.amount == usd("6.05")

    unsettled = gateway.charge(CREDS, card(usd("7.00"), token="fake-valid-visa-nonce"))
    voided = gateway.refund(CREDS, unsettled.reference, usd("7.00"), key())
    assert voided.status is GatewayStatus.VOIDED


def test_authorize_capture_part_and_void(gateway: BraintreeGateway) -> None:
    auth = gateway.charge(CREDS, card(usd("20.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    captured = gateway.capture(CREDS, auth.reference, usd("12.50"), key())
    assert captured.status is GatewayStatus.CAPTURED
    assert captured.amount == usd("12.50")

    other = gateway.charge(CREDS, card(usd("9.00"), "fake-valid-visa-nonce", capture=False))
    assert gateway.void(CREDS, other.reference, key()).status is GatewayStatus.VOIDED


def test_a_decline_and_invalid_nonces(gateway: BraintreeGateway) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(CREDS, card(usd("2001.00")))
    assert caught.value.decline_code == "insufficient_funds"

    with pytest.raises(Declined):
        gateway.charge(CREDS, card(usd("10.00"), "fake-processor-declined-visa-nonce"))
    for token in ("fake-consumed-nonce", f"tokencc_unknown_{uuid.uuid4().hex[:8]}"):
        with pytest.raises(PaymentMethodInvalid) as invalid:
            gateway.charge(CREDS, card(usd("10.00"), token))
        assert token not in str(invalid.value)


def test_bad_credentials(gateway: BraintreeGateway) -> None:
    wrong = GatewayCredentials(api_secret="0" * 32, sandbox=True, fields={"publicKey": PUBLIC_KEY})
    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(wrong, card(usd("10.00")))
    assert "0" * 32 not in str(caught.value)


def test_save_a_card_charge_it_and_retry(gateway: BraintreeGateway) -> None:
    saved = gateway.save_payment_method(
        CREDS,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token="fake-valid-nonce",
            customer_id="payhub-remote",
            gateway_customer_ref=None,
            email="remote-test@example.com",
            name="Remote Test",
            idempotency_key=key(),
        ),
    )
    assert saved.last4
    assert saved.brand
    request = ChargeRequest(
        amount=usd("11.11"),
        source=PaymentSource(
            MethodType.CARD,
            saved_method_ref=saved.method_ref,
            gateway_customer_ref=saved.gateway_customer_ref,
        ),
        capture=True,
        idempotency_key=key(),
    )
    first = gateway.charge(CREDS, request)
    again = gateway.charge(CREDS, request)  # duplicate checking answers with the original
    assert again.reference == first.reference


def test_yen_has_no_decimals(gateway: BraintreeGateway) -> None:
    try:
        result = gateway.charge(CREDS, card(Money.of("1000", "JPY")))
    except GatewayError as error:
        if "no active merchant account in JPY" in error.detail:
            pytest.skip("the sandbox account has no JPY merchant account")
        raise
    assert result.amount == Money.of("1000", "JPY")


@pytest.mark.skipif(
    os.environ.get("BRAINTREE_SANDBOX_ACH") != "1", reason="BRAINTREE_SANDBOX_ACH is not 1"
)
def test_vault_a_bank_account_and_debit_it(gateway: BraintreeGateway) -> None:
    tokenized = graphql(
        "mutation Tokenize($input: TokenizeUsBankAccountInput!) {"
        " tokenizeUsBankAccount(input: $input) { paymentMethod { id } } }",
        {
            "input": {
                "usBankAccount": {
                    "accountNumber": "1000000000",
                    "routingNumber": "011000015",
                    "accountType": "CHECKING",
                    "individualOwner": {"firstName": "Remote", "lastName": "Test"},
                    "billingAddress": {
                        "streetAddress": "123 Main St",
                        "city": "Chicago",
                        "state": "IL",
                        "zipCode": "60606",
                    },
                    "achMandate": "I authorize payhub tests to debit this account.",
                }
            }
        },
    )
    token = tokenized["tokenizeUsBankAccount"]["paymentMethod"]["id"]
    saved = gateway.save_payment_method(
        CREDS,
        SaveMethodRequest(
            method_type=MethodType.BANK_ACCOUNT,
            token=token,
            customer_id="payhub-remote",
            gateway_customer_ref=None,
            idempotency_key=key(),
        ),
    )
    assert saved.method_type is MethodType.BANK_ACCOUNT
    debit = gateway.charge(
        CREDS,
        ChargeRequest(
            amount=usd("5.00"),
            source=PaymentSource(
                MethodType.BANK_ACCOUNT,
                saved_method_ref=saved.method_ref,
                gateway_customer_ref=saved.gateway_customer_ref,
            ),
            capture=True,
            idempotency_key=key(),
        ),
    )
    assert debit.status in (GatewayStatus.SUBMITTED, GatewayStatus.CAPTURED)
