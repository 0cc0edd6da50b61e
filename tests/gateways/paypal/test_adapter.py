"""The PayPal adapter against an in-memory fake of PayPal's REST APIs
(its fake.py beside this file)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.paypal.adapter import (
    LIVE_BASE,
    SANDBOX_BASE,
    PayPalGateway,
    paypal_amount,
)
from payhub.adapters.system import FixedClock
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    GatewayTimeout,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import START, Account
from tests.gateways.paypal.fake import CLIENT_ID, SECRET, FakePayPal
from tests.gateways.support import hub_on, usd

SANDBOX = GatewayCredentials(api_secret=SECRET, sandbox=True, fields={"clientId": CLIENT_ID})


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def fake() -> FakePayPal:
    return FakePayPal()


@pytest.fixture
def ticks() -> Clock:
    return Clock()


@pytest.fixture
def gateway(fake: FakePayPal, ticks: Clock) -> Iterator[PayPalGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield PayPalGateway(client, now=ticks)


def card(amount: Money, token: str, capture: bool = True, key: str = "charge-1") -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=token), capture, key)


def sent(request: httpx.Request) -> Any:
    return json.loads(request.content)


# --- charges, captures, refunds, voids, status --------------------------------------------


def test_sale_patches_the_order_to_payhubs_amount_then_captures(
    gateway: PayPalGateway, fake: FakePayPal
) -> None:
    order = fake.card_fields_order("1.00", intent="AUTHORIZE")

    result = gateway.charge(SANDBOX, card(usd("10.05"), order))

    assert (result.reference, result.status, result.amount) == (
        order,
        GatewayStatus.CAPTURED,
        usd("10.05"),
    )
    patch = next(r for r in fake.requests if r.method == "PATCH")
    assert sent(patch) == [
        {"op": "replace", "path": "/intent", "value": "CAPTURE"},
        {
            "op": "replace",
            "path": "/purchase_units/@reference_id=='default'/amount",
            "value": {"currency_code": "USD", "value": "10.05"},
        },
        {
            "op": "add",
            "path": "/purchase_units/@reference_id=='default'/custom_id",
            "value": "charge-1",
        },
    ]
    [capture] = fake.captures.values()
    assert capture["amount"] == {"currency_code": "USD", "value": "10.05"}
    assert fake.posts(f"/v2/checkout/orders/{order}/capture")[0].headers["PayPal-Request-Id"] == (
        "charge-1"
    )
    assert result.support["paypal_status"] == "COMPLETED"
    assert result.support["debug_id"]


def test_requests_use_an_oauth_token_and_the_sandbox_host(
    gateway: PayPalGateway, fake: FakePayPal
) -> None:
    gateway.charge(SANDBOX, card(usd("5.00"), fake.card_fields_order()))

    token_call = fake.requests[0]
    assert str(token_call.url) == f"{SANDBOX_BASE}/v1/oauth2/token"
    assert token_call.headers["Authorization"].startswith("Basic ")
    assert token_call.content == b"grant_type=client_credentials"
    assert all(r.url.host == "api-m.sandbox.paypal.com" for r in fake.requests)
    assert all(r.headers["Authorization"].startswith("Bearer A21AA") for r in fake.requests[1:])
    assert [r.url.path for r in fake.requests].count("/v1/oauth2/token") == 1


def test_the_access_token_is_cached_then_renewed_when_it_expires(
    gateway: PayPalGateway, fake: FakePayPal, ticks: Clock
) -> None:
    gateway.status(SANDBOX, fake.card_fields_order())
    gateway.status(SANDBOX, fake.card_fields_order())
    assert [r.url.path for r in fake.requests].count("/v1/oauth2/token") == 1

    ticks.t += 32400
    gateway.status(SANDBOX, fake.card_fields_order())
    assert [r.url.path for r in fake.requests].count("/v1/oauth2/token") == 2


def test_a_token_paypal_forgot_is_fetched_again_once(
    gateway: PayPalGateway, fake: FakePayPal
) -> None:
    order = fake.card_fields_order()
    gateway.status(SANDBOX, order)
    fake.expire_tokens()

    assert gateway.status(SANDBOX, order).status is GatewayStatus.PENDING
    assert [r.url.path for r in fake.requests].count("/v1/oauth2/token") == 2


def test_live_credentials_go_to_the_live_host(gateway: PayPalGateway, fake: FakePayPal) -> None:
    live = GatewayCredentials(api_secret=SECRET, sandbox=False, fields={"clientId": CLIENT_ID})
    order = fake.card_fields_order(sandbox=False)

    gateway.charge(live, card(usd("5.00"), order))

    assert str(fake.requests[0].url) == f"{LIVE_BASE}/v1/oauth2/token"
    with pytest.raises(PaymentMethodInvalid):  # a live order is unknown to the sandbox
        gateway.charge(SANDBOX, card(usd("5.00"), order, key="other"))


def test_authorize_then_capture_part(gateway: PayPalGateway, fake: FakePayPal) -> None:
    auth = gateway.charge(SANDBOX, card(usd("10.00"), fake.card_fields_order(), capture=False))
    assert (auth.status, auth.amount) == (GatewayStatus.AUTHORIZED, usd("10.00"))

    captured = gateway.capture(SANDBOX, auth.reference, usd("6.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("6.00"))
    [authorization] = fake.authorizations.values()
    request = fake.posts(f"/v2/payments/authorizations/{authorization['id']}/capture")[0]
    assert sent(request) == {
        "amount": {"currency_code": "USD", "value": "6.00"},
        "final_capture": True,
    }
    assert request.headers["PayPal-Request-Id"] == "capture-1"
    status = gateway.status(SANDBOX, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, usd("6.00"))


def test_authorize_then_capture_in_full(gateway: PayPalGateway, fake: FakePayPal) -> None:
    auth = gateway.charge(SANDBOX, card(usd("42.00"), fake.card_fields_order(), capture=False))

    captured = gateway.capture(SANDBOX, auth.reference, usd("42.00"), "capture-1")

    assert captured.amount == usd("42.00")
    with pytest.raises(GatewayError, match="no open authorization"):
        gateway.capture(SANDBOX, auth.reference, usd("1.00"), "capture-2")


def test_refund_in_part_then_the_rest(gateway: PayPalGateway, fake: FakePayPal) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00"), fake.card_fields_order()))

    first = gateway.refund(SANDBOX, sale.reference, usd("12.50"), "refund-1")
    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("12.50"))
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.CAPTURED
    gateway.refund(SANDBOX, sale.reference, usd("17.50"), "refund-2")

    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.REFUNDED
    [capture] = fake.captures.values()
    request = fake.posts(f"/v2/payments/captures/{capture['id']}/refund")[0]
    assert sent(request) == {"amount": {"currency_code": "USD", "value": "12.50"}}
    assert request.headers["PayPal-Request-Id"] == "refund-1"
    with pytest.raises(GatewayError, match="no captured payment"):
        gateway.refund(SANDBOX, sale.reference, usd("1.00"), "refund-3")


def test_refunding_more_than_is_left_is_refused(gateway: PayPalGateway, fake: FakePayPal) -> None:
    sale = gateway.charge(SANDBOX, card(usd("10.00"), fake.card_fields_order()))

    with pytest.raises(GatewayError, match="REFUND_AMOUNT_EXCEEDED") as caught:
        gateway.refund(SANDBOX, sale.reference, usd("10.01"), "refund-1")
    assert type(caught.value) is GatewayError


def test_void_an_authorization(gateway: PayPalGateway, fake: FakePayPal) -> None:
    auth = gateway.charge(SANDBOX, card(usd("7.00"), fake.card_fields_order(), capture=False))

    voided = gateway.void(SANDBOX, auth.reference, "void-1")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("7.00"))
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="no open authorization"):
        gateway.capture(SANDBOX, auth.reference, usd("7.00"), "capture-1")


def test_status_of_an_unknown_order(gateway: PayPalGateway) -> None:
    with pytest.raises(GatewayError, match="no object"):
        gateway.status(SANDBOX, "5O000000000000000")


# --- declines and invalid tokens ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("CCREJECT-REFUSED", "generic_decline"),
        ("CCREJECT-IF", "insufficient_funds"),
        ("CCREJECT-EC", "expired_card"),
        ("CCREJECT-CVV_F", "incorrect_cvc"),
        ("CCREJECT-SF", "fraudulent"),
        ("CCREJECT-BANK_ERROR", "generic_decline"),
    ],
)
@pytest.mark.parametrize("capture", [True, False])
def test_declines_carry_a_normalised_code(
    gateway: PayPalGateway, fake: FakePayPal, name: str, code: str, capture: bool
) -> None:
    order = fake.card_fields_order(name=name)
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), order, capture=capture))

    assert caught.value.decline_code == code
    assert caught.value.gateway_request_id
    assert order not in str(caught.value) + (caught.value.gateway_message or "")
    assert gateway.status(SANDBOX, order).status is GatewayStatus.DECLINED


def test_an_unknown_order_is_an_invalid_payment_method(gateway: PayPalGateway) -> None:
    token = "5O190127TN364715T"
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token))

    assert token not in str(caught.value) + (caught.value.gateway_message or "")


def test_an_order_paid_under_another_key_is_a_used_token(
    gateway: PayPalGateway, fake: FakePayPal
) -> None:
    order = fake.card_fields_order()
    gateway.charge(SANDBOX, card(usd("10.00"), order, key="first"))

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, card(usd("10.00"), order, key="second"))
    assert len(fake.captures) == 1


def test_a_retry_after_a_lost_answer_returns_the_first_charge(
    gateway: PayPalGateway, fake: FakePayPal
) -> None:
    order = fake.card_fields_order()
    first = gateway.charge(SANDBOX, card(usd("10.00"), order, key="same"))

    again = gateway.charge(SANDBOX, card(usd("10.00"), order, key="same"))

    assert (again.reference, again.status) == (first.reference, GatewayStatus.CAPTURED)
    assert again.support["replayed"] == "true"
    assert len(fake.captures) == 1


def test_paypal_replays_a_request_id(gateway: PayPalGateway, fake: FakePayPal) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(fake.approved_setup_token()))
    request = saved_charge(saved.method_ref, "dup")

    first = gateway.charge(SANDBOX, request)
    again = gateway.charge(SANDBOX, request)

    assert again.reference == first.reference
    assert len(fake.orders) == 1
    assert [r.headers["PayPal-Request-Id"] for r in fake.posts("/v2/checkout/orders")] == [
        "dup",
        "dup",
    ]


# --- credentials, outages ---------------------------------------------------------------


def test_bad_credentials_are_rejected_without_echoing_them(gateway: PayPalGateway) -> None:
    wrong = GatewayCredentials("EWrongSecret9876", sandbox=True, fields={"clientId": CLIENT_ID})

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.status(wrong, "5O1")

    assert "EWrongSecret9876" not in str(caught.value)
    assert "9876" not in str(caught.value)


def test_a_missing_client_id_never_reaches_paypal(gateway: PayPalGateway, fake: FakePayPal) -> None:
    with pytest.raises(GatewayCredentialsRejected, match="clientId"):
        gateway.status(GatewayCredentials(SECRET, sandbox=True), "5O1")
    assert fake.requests == []


def test_server_error_is_unavailable(gateway: PayPalGateway, fake: FakePayPal) -> None:
    order = fake.card_fields_order()
    gateway.status(SANDBOX, order)
    fake.fail_next(500)

    with pytest.raises(GatewayUnavailable) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), order))
    assert caught.value.retry_safe is True


def test_rate_limit_is_unavailable(gateway: PayPalGateway, fake: FakePayPal) -> None:
    order = fake.card_fields_order()
    gateway.status(SANDBOX, order)
    fake.fail_next(429)

    with pytest.raises(GatewayUnavailable, match="slow down"):
        gateway.status(SANDBOX, order)


def test_timeout_is_gateway_timeout() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("no answer", request=request)

    with (
        httpx.Client(transport=httpx.MockTransport(slow)) as client,
        pytest.raises(GatewayTimeout),
    ):
        PayPalGateway(client).status(SANDBOX, "5O1")


# --- amounts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "value"),
    [
        ("10.05", "USD", "10.05"),
        ("10", "EUR", "10.00"),
        ("1500", "JPY", "1500"),
        ("300", "HUF", "300"),
    ],
)
def test_paypal_amounts(amount: str, currency: str, value: str) -> None:
    assert paypal_amount(Money.of(Decimal(amount), currency)) == {
        "currency_code": currency,
        "value": value,
    }


def test_fractions_paypal_cannot_charge_are_refused() -> None:
    with pytest.raises(ValidationError):
        paypal_amount(Money.of(Decimal("10.50"), "HUF"))


# --- the vault ---------------------------------------------------------------------------


def save(token: str, customer: str | None = None, key: str = "save-1") -> SaveMethodRequest:
    return SaveMethodRequest(MethodType.CARD, token, "cus-payhub-7", customer, idempotency_key=key)


def saved_charge(method: str, key: str, capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        usd("25.00"), PaymentSource(MethodType.CARD, saved_method_ref=method), capture, key
    )


def test_save_a_card_from_an_approved_setup_token(gateway: PayPalGateway, fake: FakePayPal) -> None:
    token = fake.approved_setup_token(last_digits="1111")

    saved = gateway.save_payment_method(SANDBOX, save(token))

    assert saved.gateway_customer_ref in fake.customers
    assert saved.method_ref in fake.payment_tokens
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("visa", "1111", 12, 2030)
    request = fake.posts("/v3/vault/payment-tokens")[0]
    assert sent(request) == {"payment_source": {"token": {"id": token, "type": "SETUP_TOKEN"}}}
    assert request.headers["PayPal-Request-Id"] == "save-1"


def test_a_second_card_joins_the_same_customer(gateway: PayPalGateway, fake: FakePayPal) -> None:
    first = gateway.save_payment_method(SANDBOX, save(fake.approved_setup_token()))

    second = gateway.save_payment_method(
        SANDBOX, save(fake.approved_setup_token(), first.gateway_customer_ref, "save-2")
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert sent(fake.posts("/v3/vault/payment-tokens")[1])["customer"] == {
        "id": first.gateway_customer_ref
    }


def test_a_used_setup_token_is_an_invalid_payment_method(
    gateway: PayPalGateway, fake: FakePayPal
) -> None:
    token = fake.approved_setup_token()
    gateway.save_payment_method(SANDBOX, save(token))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(SANDBOX, save(token, key="save-2"))
    assert token not in str(caught.value) + (caught.value.gateway_message or "")
    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(SANDBOX, save("8TNOSUCHTOKEN0000", key="save-3"))


@pytest.mark.parametrize(
    ("capture", "status"), [(True, GatewayStatus.CAPTURED), (False, GatewayStatus.AUTHORIZED)]
)
def test_charge_a_saved_card_as_a_merchant_initiated_payment(
    gateway: PayPalGateway, fake: FakePayPal, capture: bool, status: GatewayStatus
) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(fake.approved_setup_token()))

    result = gateway.charge(SANDBOX, saved_charge(saved.method_ref, "saved-1", capture))

    assert (result.status, result.amount) == (status, usd("25.00"))
    body = sent(fake.posts("/v2/checkout/orders")[0])
    assert body["intent"] == ("CAPTURE" if capture else "AUTHORIZE")
    assert body["payment_source"]["card"] == {
        "vault_id": saved.method_ref,
        "stored_credential": {
            "payment_initiator": "MERCHANT",
            "payment_type": "UNSCHEDULED",
            "usage": "SUBSEQUENT",
        },
    }
    assert body["purchase_units"][0]["custom_id"] == "saved-1"


def test_a_declined_saved_card(gateway: PayPalGateway, fake: FakePayPal) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(fake.approved_setup_token("CCREJECT-IF")))

    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, saved_charge(saved.method_ref, "saved-1"))
    assert caught.value.decline_code == "insufficient_funds"


def test_an_unknown_saved_card_is_an_invalid_payment_method(gateway: PayPalGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, saved_charge("9999ptk", "saved-1"))


def test_bank_accounts_are_not_taken(gateway: PayPalGateway, fake: FakePayPal) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="x")
    with pytest.raises(ValueError, match="only cards"):
        gateway.charge(SANDBOX, ChargeRequest(usd("1.00"), source, True, "k"))
    assert fake.requests == []


def test_ids_in_paths_are_quoted(gateway: PayPalGateway, fake: FakePayPal) -> None:
    with pytest.raises(GatewayError):
        gateway.status(SANDBOX, "x/../../v3/vault")

    assert fake.requests[-1].url.raw_path == b"/v2/checkout/orders/x%2F..%2F..%2Fv3%2Fvault"


# --- through payhub's API ----------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, fake: FakePayPal) -> Iterator[PayHub]:
    yield from hub_on(
        store_url, key_file, FixedClock(START), fake.handler, {"paypal": PayPalGateway}
    )


def test_charge_over_http_with_credentials_set_through_the_api(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakePayPal,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-pp")
    put = client.put(
        "/api/merchant-accounts/shop-pp/credentials/paypal",
        json={
            "apiSecret": SECRET,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"clientId": CLIENT_ID},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-pp"}
    order = fake.card_fields_order("1.00")

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 25.05, "currency": "USD"},
            "gatewayName": "paypal",
            "paymentMethodToken": order,
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["status"], body["gatewayReference"]) == ("Captured", order)
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(sandbox_provider.provider.id, "shop-pp")
        assert merchant is not None
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.amount, tx.gateway_reference) == (TxStatus.CAPTURED, usd("25.05"), order)
    [capture] = fake.captures.values()
    assert capture["amount"] == {"currency_code": "USD", "value": "25.05"}
    assert SECRET not in response.text

    declined = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 5, "currency": "USD"},
            "gatewayName": "paypal",
            "paymentMethodToken": fake.card_fields_order(name="CCREJECT-IF"),
        },
        headers=headers,
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
