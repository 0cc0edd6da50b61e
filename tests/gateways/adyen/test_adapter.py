"""The Adyen adapter against an in-memory fake of Adyen's Checkout API
(its fake.py beside this file)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.adyen.adapter import TEST_BASE, AdyenGateway, adyen_amount
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import Account
from tests.gateways.adyen.fake import (
    API_KEY,
    LIVE_HOST,
    LIVE_KEY,
    LIVE_PREFIX,
    MERCHANT,
    FakeAdyen,
    card,
)
from tests.gateways.support import usd

SANDBOX = GatewayCredentials(API_KEY, sandbox=True, fields={"merchantAccount": MERCHANT})
LIVE = GatewayCredentials(
    LIVE_KEY, sandbox=False, fields={"merchantAccount": MERCHANT, "liveUrlPrefix": LIVE_PREFIX}
)


@pytest.fixture
def gateway(fake: FakeAdyen) -> Iterator[AdyenGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield AdyenGateway(client)


def charge(
    amount: Money, token: str | None = None, capture: bool = True, key: str = "charge-1"
) -> ChargeRequest:
    return ChargeRequest(
        amount, PaymentSource(MethodType.CARD, token=token or card()), capture, key
    )


# --- charges and modifications ------------------------------------------------------------


def test_sale_captures_immediately_whatever_the_account_default(
    gateway: AdyenGateway, fake: FakeAdyen
) -> None:
    result = gateway.charge(SANDBOX, charge(usd("10.05")))

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert fake.payments[result.reference]["state"] == "Captured"
    request = fake.requests[0]
    assert str(request.url) == f"{TEST_BASE}/payments"
    assert request.headers["X-API-Key"] == API_KEY
    assert request.headers["Idempotency-Key"] == "charge-1"
    body = json.loads(request.content)
    assert body["amount"] == {"currency": "USD", "value": 1005}
    assert (body["merchantAccount"], body["reference"]) == (MERCHANT, "charge-1")
    assert body["captureDelayHours"] == 0
    assert body["paymentMethod"] == json.loads(card())
    assert body["shopperInteraction"] == "Ecommerce"
    assert result.support["psp_reference"] == result.reference


def test_authorize_then_capture_part(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    auth = gateway.charge(SANDBOX, charge(usd("10.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.bodies("/payments")[0]["additionalData"] == {"manualCapture": "true"}

    captured = gateway.capture(SANDBOX, auth.reference, usd("6.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.PENDING, usd("6.00"))
    assert "webhook" in (captured.message or "")
    assert captured.support["adyen_status"] == "received"
    body = fake.bodies(f"/payments/{auth.reference}/captures")[0]
    assert body == {
        "amount": {"currency": "USD", "value": 600},
        "reference": "capture-1",
        "merchantAccount": MERCHANT,
    }
    assert fake.payments[auth.reference]["captured"] == 600
    assert fake.notifications[-1]["success"] is True


def test_capture_in_full(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    auth = gateway.charge(SANDBOX, charge(usd("42.00"), capture=False))

    gateway.capture(SANDBOX, auth.reference, usd("42.00"), "capture-1")

    assert fake.payments[auth.reference]["captured"] == 4200


def test_refunds_in_part_and_in_full(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    sale = gateway.charge(SANDBOX, charge(usd("30.00")))

    first = gateway.refund(SANDBOX, sale.reference, usd("12.50"), "refund-1")
    gateway.refund(SANDBOX, sale.reference, usd("17.50"), "refund-2")

    assert first.status is GatewayStatus.PENDING
    assert first.reference != sale.reference  # the refund's own pspReference
    assert first.support["payment"] == sale.reference
    assert fake.payments[sale.reference]["state"] == "Refunded"
    refunds = [n for n in fake.notifications if n["eventCode"] == "REFUND"]
    assert [n["success"] for n in refunds] == [True, True]


def test_void_cancels_the_authorization(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    auth = gateway.charge(SANDBOX, charge(usd("7.00"), capture=False))

    voided = gateway.void(SANDBOX, auth.reference, "void-1")

    assert voided.reference == fake.notifications[-1]["pspReference"] != auth.reference
    assert voided.support["payment"] == auth.reference
    assert fake.payments[auth.reference]["state"] == "Cancelled"
    assert fake.bodies("/cancels")[0] == {"reference": "void-1", "merchantAccount": MERCHANT}


def test_a_modification_of_an_unknown_payment_is_refused(gateway: AdyenGateway) -> None:
    with pytest.raises(GatewayError, match="no payment with that reference"):
        gateway.capture(SANDBOX, "8800000000000999", usd("1.00"), "capture-1")


def test_status_says_adyen_cannot_be_asked(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    sale = gateway.charge(SANDBOX, charge(usd("5.00")))

    with pytest.raises(GatewayError, match="no API to look a payment up") as caught:
        gateway.status(SANDBOX, sale.reference)

    assert caught.value.retry_safe is False
    assert len(fake.requests) == 1


# --- declines and invalid methods --------------------------------------------------------


@pytest.mark.parametrize(
    ("holder", "code"),
    [
        ("DECLINED", "generic_decline"),
        ("NOT_ENOUGH_BALANCE", "insufficient_funds"),
        ("EXPIRED", "expired_card"),
        ("CVC_DECLINED", "incorrect_cvc"),
        ("FRAUD", "fraudulent"),
        ("BLOCK_CARD", "fraudulent"),
        ("ACQUIRER_ERROR", "processing_error"),
    ],
)
def test_refusals_carry_a_normalised_code(gateway: AdyenGateway, holder: str, code: str) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, charge(usd("10.00"), card(holder=holder)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message  # Adyen's refusalReason
    assert caught.value.gateway_request_id  # the pspReference
    assert "4111111111111111" not in str(caught.value)


@pytest.mark.parametrize(
    "token",
    [
        "not json",
        json.dumps({"type": "ach"}),
        json.dumps({"type": "scheme", "encryptedCardNumber": "adyenjs_0_1_25$garbage"}),
    ],
)
def test_an_unusable_payment_method_is_invalid(gateway: AdyenGateway, token: str) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, charge(usd("10.00"), token))

    assert "garbage" not in str(caught.value) + (caught.value.gateway_message or "")


# --- credentials, hosts, outages ---------------------------------------------------------


def test_bad_api_key_is_rejected_without_echoing_it(gateway: AdyenGateway) -> None:
    wrong = GatewayCredentials(
        "AQEwrongkey4321", sandbox=True, fields={"merchantAccount": MERCHANT}
    )

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(wrong, charge(usd("10.00")))
    assert "4321" not in str(caught.value)


def test_a_wrong_merchant_account_is_rejected(gateway: AdyenGateway) -> None:
    other = GatewayCredentials(API_KEY, sandbox=True, fields={"merchantAccount": "Someone"})
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(other, charge(usd("10.00")))


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials(API_KEY, sandbox=True),
        GatewayCredentials(LIVE_KEY, sandbox=False, fields={"merchantAccount": MERCHANT}),
    ],
)
def test_missing_fields_never_reach_adyen(
    gateway: AdyenGateway, fake: FakeAdyen, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(creds, charge(usd("10.00")))
    assert fake.requests == []


def test_live_uses_the_accounts_prefixed_host(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    gateway.charge(LIVE, charge(usd("10.00")))

    assert str(fake.requests[0].url) == f"https://{LIVE_HOST}/checkout/v71/payments"


def test_server_error_is_unavailable(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    fake.fail_next(500)
    with pytest.raises(GatewayUnavailable):
        gateway.charge(SANDBOX, charge(usd("10.00")))


def test_rate_limit_is_unavailable(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    fake.fail_next(429)
    with pytest.raises(GatewayUnavailable, match="slow down"):
        gateway.charge(SANDBOX, charge(usd("10.00")))


# --- idempotency -------------------------------------------------------------------------


def test_a_retried_charge_is_answered_with_the_first_payment(
    gateway: AdyenGateway, fake: FakeAdyen
) -> None:
    first = gateway.charge(SANDBOX, charge(usd("10.00"), key="same"))
    again = gateway.charge(SANDBOX, charge(usd("10.00"), key="same"))

    assert again.reference == first.reference
    assert len(fake.payments) == 1


def test_long_keys_are_hashed_to_adyens_limit(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    gateway.charge(SANDBOX, charge(usd("10.00"), key="k" * 80))

    assert len(fake.requests[0].headers["Idempotency-Key"]) == 64


def test_every_post_carries_payhubs_key(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    auth = gateway.charge(SANDBOX, charge(usd("10.00"), capture=False, key="k-charge"))
    gateway.capture(SANDBOX, auth.reference, usd("10.00"), "k-capture")
    gateway.refund(SANDBOX, auth.reference, usd("1.00"), "k-refund")

    assert [r.headers["Idempotency-Key"] for r in fake.requests] == [
        "k-charge",
        "k-capture",
        "k-refund",
    ]


# --- amounts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "value"),
    [("10.05", "USD", 1005), ("1500", "JPY", 1500), ("5.125", "KWD", 5125)],
)
def test_minor_units(amount: str, currency: str, value: int) -> None:
    assert adyen_amount(Money.of(Decimal(amount), currency))["value"] == value


def test_fractions_below_the_minor_unit_are_refused() -> None:
    with pytest.raises(ValidationError):
        adyen_amount(Money(Decimal("10.001"), "USD"))


# --- stored payment methods --------------------------------------------------------------


def save(token: str, customer: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        MethodType.CARD, token, "cus_payhub_7", customer, "ada@example.com", idempotency_key="s-1"
    )


def test_save_a_card_for_the_shopper(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(card("5555444433331111")))

    assert saved.gateway_customer_ref == "cus_payhub_7"
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("mc", "1111", 3, 2030)
    body = fake.bodies("/storedPaymentMethods")[0]
    assert body["shopperReference"] == "cus_payhub_7"
    assert body["recurringProcessingModel"] == "UnscheduledCardOnFile"
    assert fake.stored[saved.method_ref]["shopper"] == "cus_payhub_7"


def test_charge_a_stored_card(gateway: AdyenGateway, fake: FakeAdyen) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(card()))
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(SANDBOX, ChargeRequest(usd("25.00"), source, True, "saved-1"))

    assert result.status is GatewayStatus.CAPTURED
    body = fake.bodies("/payments")[0]
    assert body["paymentMethod"] == {"type": "scheme", "storedPaymentMethodId": saved.method_ref}
    assert (body["shopperInteraction"], body["recurringProcessingModel"]) == (
        "ContAuth",
        "UnscheduledCardOnFile",
    )
    assert body["shopperReference"] == saved.gateway_customer_ref


def test_a_stored_card_of_another_shopper_is_invalid(gateway: AdyenGateway) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(card()))
    source = PaymentSource(
        MethodType.CARD, saved_method_ref=saved.method_ref, gateway_customer_ref="someone-else"
    )
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, ChargeRequest(usd("25.00"), source, True, "saved-1"))


def test_saving_an_unreadable_card_is_invalid(gateway: AdyenGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(SANDBOX, save(card(holder="DECLINED")))


# --- through payhub's API ----------------------------------------------------------------


def test_charge_over_http_with_credentials_set_through_the_api(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeAdyen,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-ad")
    put = client.put(
        "/api/merchant-accounts/shop-ad/credentials/adyen",
        json={
            "apiSecret": API_KEY,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"merchantAccount": MERCHANT},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-ad"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 25.05, "currency": "USD"},
            "gatewayName": "adyen",
            "paymentMethodToken": fake.encrypted_card(),
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Captured"
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(sandbox_provider.provider.id, "shop-ad")
        assert merchant is not None
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.amount) == (TxStatus.CAPTURED, usd("25.05"))
    assert fake.payments[tx.gateway_reference or ""]["amount"] == {"currency": "USD", "value": 2505}
    assert API_KEY not in response.text

    refused = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 5, "currency": "USD"},
            "gatewayName": "adyen",
            "paymentMethodToken": fake.encrypted_card(holder="NOT_ENOUGH_BALANCE"),
        },
        headers=headers,
    )
    assert refused.status_code == 402, refused.text
    assert refused.json()["declineCode"] == "insufficient_funds"
