"""The USAePay adapter against USAePay's real sandbox; skipped unless credentials are set.

Environment:
  USAEPAY_SANDBOX_API_KEY      an API key of a USAePay sandbox merchant (sandbox.usaepay.com)
  USAEPAY_SANDBOX_PIN          that API key's PIN
  USAEPAY_SANDBOX_PAYMENT_KEY  optional: a fresh Pay.js payment key (single use), to test the
                               token sale and the vault (cc:save + payment_methods)

Pay.js payment keys can only be made in a browser, so the tests without one tokenize
USAePay's documented sandbox test card 4000 1000 1111 2224 with ``cc:save`` (a sandbox-only
fixture: payhub itself never sends card numbers) and charge its card reference through a
customer payment method. Declines use the sandbox's documented decline card
4000 3000 1111 2220 (https://help.usaepay.info/developer/reference/testcards/). Amounts carry
random cents so that USAePay's duplicate folding does not answer with an earlier run.
These runs settle the open questions in docs/gateways.md (``cc:save`` with a payment key,
the transactions list shape used by ``lookup``).
"""

from __future__ import annotations

import os
import random
import uuid
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.usaepay.adapter import SANDBOX_BASE_URL, UsaEpayGateway, authorization
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
    SavedMethod,
    SaveMethodRequest,
)

API_KEY = os.environ.get("USAEPAY_SANDBOX_API_KEY", "")
PIN = os.environ.get("USAEPAY_SANDBOX_PIN", "")
PAYMENT_KEY = os.environ.get("USAEPAY_SANDBOX_PAYMENT_KEY", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (API_KEY and PIN), reason="USAEPAY_SANDBOX_API_KEY/PIN are not set"),
]


@pytest.fixture(scope="module")
def creds() -> GatewayCredentials:
    return GatewayCredentials(api_secret=API_KEY, sandbox=True, fields={"pin": PIN})


@pytest.fixture(scope="module")
def usaepay() -> UsaEpayGateway:
    return UsaEpayGateway(httpx.Client(timeout=60))


def _post(path: str, body: object) -> object:
    response = httpx.post(
        SANDBOX_BASE_URL + path,
        json=body,
        headers={"Authorization": authorization(API_KEY, PIN, uuid.uuid4().hex[:16])},
        timeout=60,
    )
    response.raise_for_status()
    return response.json()


def _test_card(number: str) -> SavedMethod:
    """A customer payment method holding one of USAePay's sandbox test cards."""
    saved = _post(
        "/transactions",
        {"command": "cc:save", "creditcard": {"number": number, "expiration": "0930"}},
    )
    assert isinstance(saved, dict)
    cardref = saved["savedcard"]["key"]
    customer = _post("/customers", {"customerid": "payhub-remote", "first_name": "Remote"})
    assert isinstance(customer, dict)
    methods = _post(
        f"/customers/{customer['key']}/payment_methods",
        [{"pay_type": "cc", "number": cardref, "expiration": "0930", "method_name": "Test"}],
    )
    method = methods[0] if isinstance(methods, list) else methods
    assert isinstance(method, dict)
    return SavedMethod(customer["key"], method["key"], MethodType.CARD)


@pytest.fixture(scope="module")
def test_card() -> SavedMethod:
    return _test_card("4000100011112224")


def amount(low: str = "1.00") -> Money:
    return Money.of(Decimal(low) + Decimal(random.randint(0, 8999)) / 100, "USD")


def on_card(method: SavedMethod, value: Money, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        amount=value,
        source=PaymentSource(
            method_type=MethodType.CARD,
            saved_method_ref=method.method_ref,
            gateway_customer_ref=method.gateway_customer_ref,
        ),
        capture=capture,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )


def test_a_sale_is_captured_then_refunded(
    usaepay: UsaEpayGateway, creds: GatewayCredentials, test_card: SavedMethod
) -> None:
    value = amount("5.00")
    sale = usaepay.charge(creds, on_card(test_card, value))
    assert sale.status is GatewayStatus.CAPTURED
    status = usaepay.status(creds, sale.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, value)

    part = Money.of("1.00", "USD")
    refund = usaepay.refund(creds, sale.reference, part, f"phtest_{uuid.uuid4().hex[:24]}")
    assert (refund.status, refund.amount) == (GatewayStatus.REFUNDED, part)


def test_an_authorization_is_captured_in_part(
    usaepay: UsaEpayGateway, creds: GatewayCredentials, test_card: SavedMethod
) -> None:
    auth = usaepay.charge(creds, on_card(test_card, amount("5.00"), capture=False))
    assert usaepay.status(creds, auth.reference).status is GatewayStatus.AUTHORIZED

    part = Money.of("2.00", "USD")
    captured = usaepay.capture(creds, auth.reference, part, f"phtest_{uuid.uuid4().hex[:24]}")

    assert captured.status is GatewayStatus.CAPTURED
    assert usaepay.status(creds, auth.reference).amount == part


def test_an_authorization_is_voided(
    usaepay: UsaEpayGateway, creds: GatewayCredentials, test_card: SavedMethod
) -> None:
    auth = usaepay.charge(creds, on_card(test_card, amount(), capture=False))

    voided = usaepay.void(creds, auth.reference, f"phtest_{uuid.uuid4().hex[:24]}")

    assert voided.status is GatewayStatus.VOIDED
    assert usaepay.status(creds, auth.reference).status is GatewayStatus.VOIDED


def test_lookup_finds_a_charge_by_its_orderid(
    usaepay: UsaEpayGateway, creds: GatewayCredentials, test_card: SavedMethod
) -> None:
    request = on_card(test_card, amount())
    first = usaepay.charge(creds, request)

    found = usaepay.lookup(creds, request)

    assert found is not None
    assert found.reference == first.reference


def test_the_decline_card_is_declined(usaepay: UsaEpayGateway, creds: GatewayCredentials) -> None:
    with pytest.raises(Declined):
        usaepay.charge(creds, on_card(_test_card("4000300011112220"), amount()))


def test_a_wrong_pin_is_rejected(usaepay: UsaEpayGateway, test_card: SavedMethod) -> None:
    wrong = GatewayCredentials(api_secret=API_KEY, sandbox=True, fields={"pin": PIN + "0"})

    with pytest.raises(GatewayCredentialsRejected):
        usaepay.charge(wrong, on_card(test_card, amount()))


def test_an_unknown_payment_key_is_an_invalid_payment_method(
    usaepay: UsaEpayGateway, creds: GatewayCredentials
) -> None:
    request = ChargeRequest(
        amount=amount(),
        source=PaymentSource(method_type=MethodType.CARD, token="00000000000000000000"),
        capture=True,
        idempotency_key=f"phtest_{uuid.uuid4().hex[:24]}",
    )

    with pytest.raises(PaymentMethodInvalid):
        usaepay.charge(creds, request)


@pytest.mark.skipif(not PAYMENT_KEY, reason="USAEPAY_SANDBOX_PAYMENT_KEY is not set")
def test_a_payment_key_is_vaulted_and_charged(
    usaepay: UsaEpayGateway, creds: GatewayCredentials
) -> None:
    method = usaepay.save_payment_method(
        creds,
        SaveMethodRequest(
            method_type=MethodType.CARD,
            token=PAYMENT_KEY,
            customer_id="cus_remote_test",
            gateway_customer_ref=None,
        ),
    )
    assert method.last4 is not None

    assert usaepay.charge(creds, on_card(method, amount())).status is GatewayStatus.CAPTURED
