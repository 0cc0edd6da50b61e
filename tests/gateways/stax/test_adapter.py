"""The Stax adapter against an in-memory fake of Stax's API
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
from payhub.adapters.gateways.stax.adapter import (
    BASE_URL,
    StaxGateway,
    normalise_decline,
    stax_amount,
    stax_idempotency_id,
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
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import Account
from tests.gateways.stax.fake import API_KEY, FakeStax
from tests.gateways.support import hub_on, usd

CREDS = GatewayCredentials(api_secret=API_KEY, sandbox=True)


@pytest.fixture
def fake() -> FakeStax:
    return FakeStax()


@pytest.fixture
def gateway(fake: FakeStax) -> Iterator[StaxGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield StaxGateway(client)


def card(token: str, amount: Money, capture: bool = True, key: str = "charge-1") -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=token), capture, key)


def sent(request: httpx.Request) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(request.content)
    return body


# --- charges, captures, refunds, voids, status --------------------------------------------


def test_a_sale_posts_dollars_and_the_idempotency_id(gateway: StaxGateway, fake: FakeStax) -> None:
    token = fake.tokenize()

    result = gateway.charge(CREDS, card(token, usd("10.05")))

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert fake.transactions[result.reference]["type"] == "charge"
    [request] = fake.posts("/charge")
    assert str(request.url) == f"{BASE_URL}/charge"
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"
    assert b'"total":10.05' in request.content
    assert sent(request) == {
        "payment_method_id": token,
        "total": 10.05,
        "pre_auth": False,
        "meta": {"tax": 0},
        "idempotency_id": "charge-1",
    }
    assert result.support["stax_type"] == "charge"


def test_the_description_becomes_the_payment_note(gateway: StaxGateway, fake: FakeStax) -> None:
    request = ChargeRequest(
        usd("3.00"), PaymentSource(MethodType.CARD, token=fake.tokenize()), True, "d", "Order 42"
    )
    gateway.charge(CREDS, request)

    assert sent(fake.posts("/charge")[0])["meta"] == {"tax": 0, "payment_note": "Order 42"}


def test_authorize_then_capture_in_full(gateway: StaxGateway, fake: FakeStax) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("42.00"), capture=False))
    assert (auth.status, auth.amount) == (GatewayStatus.AUTHORIZED, usd("42.00"))
    assert sent(fake.posts("/charge")[0])["pre_auth"] is True

    captured = gateway.capture(CREDS, auth.reference, usd("42.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("42.00"))
    assert fake.transactions[captured.reference]["type"] == "capture"
    assert captured.support["authorization"] == auth.reference
    assert sent(fake.posts(f"/transaction/{auth.reference}/capture")[0]) == {"total": 42.0}
    assert gateway.status(CREDS, auth.reference).status is GatewayStatus.CAPTURED


def test_authorize_then_capture_part(gateway: StaxGateway, fake: FakeStax) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("10.00"), capture=False))

    captured = gateway.capture(CREDS, auth.reference, usd("6.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("6.00"))
    status = gateway.status(CREDS, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, usd("6.00"))


def test_a_second_capture_is_refused(gateway: StaxGateway, fake: FakeStax) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("10.00"), capture=False))
    gateway.capture(CREDS, auth.reference, usd("10.00"), "capture-1")

    with pytest.raises(GatewayError, match="refused") as caught:
        gateway.capture(CREDS, auth.reference, usd("10.00"), "capture-2")

    assert type(caught.value) is GatewayError
    assert "cannot be captured" in (caught.value.gateway_message or "")


def test_settled_sale_refunds_in_part_then_in_full(gateway: StaxGateway, fake: FakeStax) -> None:
    sale = gateway.charge(CREDS, card(fake.tokenize(), usd("30.00")))
    fake.settle()

    first = gateway.refund(CREDS, sale.reference, usd("12.50"), "refund-1")

    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("12.50"))
    assert fake.transactions[first.reference]["type"] == "refund"
    assert sent(fake.posts(f"/transaction/{sale.reference}/refund")[0]) == {"total": 12.5}
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.CAPTURED

    second = gateway.refund(CREDS, sale.reference, usd("17.50"), "refund-2")
    assert second.amount == usd("17.50")
    status = gateway.status(CREDS, sale.reference)
    assert (status.status, status.support["refunded"]) == (GatewayStatus.REFUNDED, "30.0")


def test_a_full_refund_before_settlement_is_a_void(gateway: StaxGateway, fake: FakeStax) -> None:
    sale = gateway.charge(CREDS, card(fake.tokenize(), usd("30.00")))

    refund = gateway.refund(CREDS, sale.reference, usd("30.00"), "refund-1")

    assert (refund.status, refund.amount) == (GatewayStatus.REFUNDED, usd("30.00"))
    assert refund.support["stax_action"] == "void"
    assert fake.posts(f"/transaction/{sale.reference}/void-or-refund")
    assert fake.transactions[sale.reference]["is_voided"] is True
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.REFUNDED


def test_a_full_refund_after_settlement_is_a_refund(gateway: StaxGateway, fake: FakeStax) -> None:
    sale = gateway.charge(CREDS, card(fake.tokenize(), usd("30.00")))
    fake.settle()

    refund = gateway.refund(CREDS, sale.reference, usd("30.00"), "refund-1")

    assert refund.support["stax_action"] == "refund"
    assert fake.transactions[refund.reference]["type"] == "refund"
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.REFUNDED


def test_a_partial_refund_before_settlement_is_refused(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    sale = gateway.charge(CREDS, card(fake.tokenize(), usd("30.00")))

    with pytest.raises(GatewayError, match="refused") as caught:
        gateway.refund(CREDS, sale.reference, usd("5.00"), "refund-1")

    assert "not settled" in (caught.value.gateway_message or "")


def test_a_refund_of_an_authorization_goes_to_its_capture(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("20.00"), capture=False))
    capture = gateway.capture(CREDS, auth.reference, usd("15.00"), "capture-1")
    fake.settle()

    refund = gateway.refund(CREDS, auth.reference, usd("5.00"), "refund-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert fake.posts(f"/transaction/{capture.reference}/refund")
    gateway.refund(CREDS, auth.reference, usd("10.00"), "refund-2")
    status = gateway.status(CREDS, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.REFUNDED, usd("15.00"))


def test_refunding_an_uncaptured_authorization_is_refused_before_stax_hears(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("20.00"), capture=False))

    with pytest.raises(GatewayError, match="no capture"):
        gateway.refund(CREDS, auth.reference, usd("5.00"), "refund-1")

    assert len(fake.requests) == 2  # the charge and one GET


def test_a_void_releases_the_authorization(gateway: StaxGateway, fake: FakeStax) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("15.00"), capture=False))

    voided = gateway.void(CREDS, auth.reference, "void-1")

    assert (voided.status, voided.reference) == (GatewayStatus.VOIDED, auth.reference)
    assert fake.posts(f"/transaction/{auth.reference}/void")
    assert gateway.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="refused"):
        gateway.capture(CREDS, auth.reference, usd("15.00"), "capture-after-void")


def test_status_of_an_authorization(gateway: StaxGateway, fake: FakeStax) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("15.00"), capture=False))

    status = gateway.status(CREDS, auth.reference)

    assert (status.status, status.amount) == (GatewayStatus.AUTHORIZED, usd("15.00"))
    assert fake.requests[-1].method == "GET"


def test_status_of_an_unknown_reference(gateway: StaxGateway) -> None:
    with pytest.raises(GatewayError, match="no object with that reference"):
        gateway.status(CREDS, "00000000-0000-4000-8000-000000000000")


def test_status_of_a_declined_charge_is_declined(gateway: StaxGateway, fake: FakeStax) -> None:
    with pytest.raises(Declined):
        gateway.charge(CREDS, card(fake.tokenize("4000000000009995"), usd("10.00")))
    [txn] = fake.of_type("charge")

    status = gateway.status(CREDS, txn["id"])

    assert (status.status, status.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


# --- declines and invalid payment methods ---------------------------------------------------


DECLINES = [
    ("4012888888881881", "generic_decline"),
    ("4000000000009995", "insufficient_funds"),
    ("4000000000000127", "incorrect_cvc"),
    ("4000000000000069", "expired_card"),
    ("4000000000009979", "fraudulent"),
    ("4000000000000119", "processing_error"),
]


@pytest.mark.parametrize(("number", "code"), DECLINES)
@pytest.mark.parametrize("as_400", [False, True])
def test_declines_carry_a_normalised_code(
    gateway: StaxGateway, fake: FakeStax, number: str, code: str, as_400: bool
) -> None:
    fake.declines_as_400 = as_400
    token = fake.tokenize(number)

    with pytest.raises(Declined) as caught:
        gateway.charge(CREDS, card(token, usd("10.00")))

    assert caught.value.decline_code == code
    assert caught.value.gateway == "stax"
    assert caught.value.gateway_message
    assert token not in str(caught.value) + (caught.value.gateway_message or "")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Do Not Honor", "generic_decline"),
        ("DECLINE", "generic_decline"),
        ("Expiry Date is invalid", "expired_card"),
        ("HOLD-CALL", "fraudulent"),
        ("Gateway Unreachable", "processing_error"),
        (None, "generic_decline"),
    ],
)
def test_decline_text_normalisation(text: str | None, code: str) -> None:
    assert normalise_decline(text) == code


def test_an_unknown_payment_method_is_invalid(gateway: StaxGateway) -> None:
    unknown = "11111111-2222-4333-8444-555555555555"
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(CREDS, card(unknown, usd("10.00")))

    assert unknown not in str(caught.value) + (caught.value.gateway_message or "")
    assert "invalid or unauthorized" in (caught.value.gateway_message or "")


def test_a_deleted_payment_method_is_invalid(gateway: StaxGateway, fake: FakeStax) -> None:
    token = fake.tokenize()
    fake.methods[token]["deleted_at"] = "2026-11-01 00:00:00"

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(CREDS, card(token, usd("10.00")))
    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(CREDS, save(token))


def test_other_currencies_are_refused_before_stax_hears(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    with pytest.raises(ValidationError, match="USD"):
        gateway.charge(CREDS, card(fake.tokenize(), Money.of(Decimal("5.00"), "CAD")))
    assert fake.requests == []


# --- credentials, outages -------------------------------------------------------------------


def test_bad_credentials_are_rejected_without_echoing_the_key(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    wrong = GatewayCredentials(api_secret="not-the-stax-key-123456", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(wrong, card(fake.tokenize(), usd("10.00")))

    assert "not-the-stax-key" not in str(vars(caught.value))
    assert caught.value.gateway_message == "Unauthenticated."
    with pytest.raises(GatewayCredentialsRejected, match="empty"):
        gateway.charge(GatewayCredentials("", True), card(fake.tokenize(), usd("1.00")))


def test_sandbox_and_live_share_one_host(gateway: StaxGateway, fake: FakeStax) -> None:
    gateway.charge(GatewayCredentials(API_KEY, sandbox=False), card(fake.tokenize(), usd("1.00")))

    assert str(fake.requests[-1].url) == f"{BASE_URL}/charge"


# --- idempotency ----------------------------------------------------------------------------


def test_a_charge_retried_after_a_lost_answer_returns_the_original(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    request = card(fake.tokenize(), usd("10.00"), key="lost-key")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        gateway.charge(CREDS, request)

    again = gateway.charge(CREDS, request)

    [txn] = fake.of_type("charge")
    assert again.reference == txn["id"]
    assert [b["idempotency_id"] for b in fake.bodies("/charge")] == ["lost-key", "lost-key"]


def test_an_idempotency_id_reused_for_another_charge_is_refused(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    token = fake.tokenize()
    gateway.charge(CREDS, card(token, usd("10.00"), key="same-key"))

    with pytest.raises(GatewayError, match="idempotency id") as caught:
        gateway.charge(CREDS, card(token, usd("11.00"), key="same-key"))

    assert caught.value.retry_safe is False
    assert "total" in (caught.value.gateway_message or "")


def test_long_keys_are_hashed_to_fit() -> None:
    assert stax_idempotency_id("k") == "k"
    long = stax_idempotency_id("x" * 300)
    assert len(long) <= 255
    assert long == stax_idempotency_id("x" * 300)


def test_amounts_are_dollars() -> None:
    assert stax_amount(usd("10.05")) == Decimal("10.05")


# --- the vault ------------------------------------------------------------------------------


def save(token: str, customer: str | None = None, key: str = "save-1") -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=token,
        customer_id="cus_payhub_7",
        gateway_customer_ref=customer,
        email="ada@example.com",
        name="Ada Lovelace",
        idempotency_key=key,
    )


def test_saving_adopts_the_staxjs_payment_method(gateway: StaxGateway, fake: FakeStax) -> None:
    token = fake.tokenize("5555555555554444")

    saved = gateway.save_payment_method(CREDS, save(token))

    method = fake.methods[token]
    assert (saved.gateway_customer_ref, saved.method_ref) == (method["customer_id"], token)
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == (
        "mastercard",
        "4444",
        12,
        2030,
    )
    assert [r.url.path for r in fake.requests] == [f"/payment-method/{token}"]
    assert fake.transactions == {}  # saving never charges


def test_a_second_card_of_the_same_customer(gateway: StaxGateway, fake: FakeStax) -> None:
    first = gateway.save_payment_method(CREDS, save(fake.tokenize()))

    second = gateway.save_payment_method(
        CREDS,
        save(fake.tokenize(customer_id=first.gateway_customer_ref), first.gateway_customer_ref),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref


def test_charge_a_saved_card(gateway: StaxGateway, fake: FakeStax) -> None:
    saved = gateway.save_payment_method(CREDS, save(fake.tokenize()))
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(CREDS, ChargeRequest(usd("25.00"), source, True, "saved-1"))

    assert result.status is GatewayStatus.CAPTURED
    assert fake.bodies("/charge")[0]["payment_method_id"] == saved.method_ref


def test_saving_an_unknown_payment_method(gateway: StaxGateway) -> None:
    with pytest.raises(GatewayError, match="no object") as caught:
        gateway.save_payment_method(CREDS, save("11111111-2222-4333-8444-555555555555"))

    assert "11111111-2222" not in str(vars(caught.value))


def test_bank_accounts_are_not_taken(gateway: StaxGateway, fake: FakeStax) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="bank")
    with pytest.raises(ValueError, match="card"):
        gateway.charge(CREDS, ChargeRequest(usd("5.00"), source, True, "ach"))
    with pytest.raises(ValueError, match="card"):
        gateway.save_payment_method(
            CREDS, SaveMethodRequest(MethodType.BANK_ACCOUNT, "bank", "cus_1", None)
        )
    assert fake.requests == []


# --- no secret or token leaks ---------------------------------------------------------------


def test_no_secret_or_token_reaches_an_error_or_a_result(
    gateway: StaxGateway, fake: FakeStax
) -> None:
    token = fake.tokenize()
    result = gateway.charge(CREDS, card(token, usd("10.00")))
    failures: list[GatewayError] = []
    for attempt in (
        lambda: gateway.charge(CREDS, card(token, usd("11.00"), key="charge-1")),
        lambda: gateway.charge(
            GatewayCredentials(api_secret="bad-" + API_KEY, sandbox=True),
            card(token, usd("1.00")),
        ),
        lambda: gateway.charge(CREDS, card(token + "0", usd("2.00"), key="unknown")),
        lambda: gateway.refund(CREDS, result.reference, usd("1.00"), "unsettled"),
    ):
        with pytest.raises(GatewayError) as caught:
            attempt()
        failures.append(caught.value)

    for text in [str(result), *(f"{e} {e.gateway_message} {vars(e)}" for e in failures)]:
        assert API_KEY not in text
        assert token not in text


def test_an_id_echoed_by_stax_is_blanked_from_the_gateway_message() -> None:
    secret = "f096d9b4-c890-45af-9b47-3de0aa10e5d2"

    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(422, json={"payment_method_id": [f"{secret} for {API_KEY}"]})

    with (
        httpx.Client(transport=httpx.MockTransport(echo)) as client,
        pytest.raises(PaymentMethodInvalid) as caught,
    ):
        StaxGateway(client).charge(CREDS, card(secret, usd("1.00")))

    assert secret not in (caught.value.gateway_message or "")
    assert API_KEY not in (caught.value.gateway_message or "")


# --- through payhub's HTTP API --------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeStax) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"stax": StaxGateway})


def test_a_charge_through_payhubs_api_reaches_stax(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeStax,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    put = client.put(
        "/api/merchant-accounts/shop-1/credentials/stax",
        json={"apiSecret": API_KEY, "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.05", "currency": "USD"},
            "gatewayName": "stax",
            "paymentMethodToken": fake.tokenize(),
            "capture": False,
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Authorized"
    [auth] = fake.of_type("pre_auth")
    assert body["gatewayReference"] == auth["id"]
    assert auth["total"] == Decimal("25.05")
    with hub.store.unit_of_work(readonly=True) as uow:
        merchant = next(m for p in uow.providers.list() for m in uow.merchants.list(p.id))
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.gateway_reference) == (TxStatus.AUTHORIZED, auth["id"])
    assert fake.bodies("/charge")[0]["idempotency_id"] == stax_idempotency_id(tx.gateway_key)

    declined = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "5.00", "currency": "USD"},
            "gatewayName": "stax",
            "paymentMethodToken": fake.tokenize("4000000000009995"),
        },
        headers=headers,
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
    with hub.store.unit_of_work(readonly=True) as uow:
        failed = uow.transactions.get(merchant.id, declined.json()["transactionId"])
    assert failed is not None
    assert (failed.status, failed.decline_code) == (TxStatus.FAILED, "insufficient_funds")
