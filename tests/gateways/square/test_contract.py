"""Square: every request the adapter sends is what the squareup SDK's methods would send, the
validator bites, every canned answer parses as the SDK's response type, and the adapter maps
those answers (shaped like Square's API Reference examples) to the right neutral results."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.square.adapter import SquareGateway
from payhub.adapters.system import FixedClock
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)
from tests.conftest import START, Account
from tests.gateways.contracts import ContractViolation, checked_transport
from tests.gateways.contracts.replay import replaying
from tests.gateways.square.contract.validator import (
    response_type,
    validate,
    validate_answer,
    validate_request,
)
from tests.gateways.square.fake import ACCESS_TOKEN, LOCATION_ID, SANDBOX_HOST, FakeSquare

CREDS = GatewayCredentials(ACCESS_TOKEN, sandbox=True, fields={"locationId": LOCATION_ID})
PAY = "R2B3Z8WMVt3EAmzYWLZvz7Y69EbZY"


def usd(value: str) -> Money:
    return Money.of(value, "USD")


# --- the validator bites -------------------------------------------------------------------

PAYMENT = {
    "idempotency_key": "7b0f3ec5-086a-4871-8f13-3c81b3875218",
    "source_id": "cnon:card-nonce-ok",
    "amount_money": {"amount": 1000, "currency": "USD"},
    "autocomplete": True,
    "location_id": LOCATION_ID,
}


@pytest.mark.parametrize(
    ("path", "broken", "why"),
    [
        ("/v2/payments", {**PAYMENT, "amount_mony": {}}, "amount_mony: not a parameter"),
        ("/v2/payments", {**PAYMENT, "autocomplete": "true"}, "autocomplete: expected a boolean"),
        (
            "/v2/payments",
            {**PAYMENT, "amount_money": {"amount": 1000, "currency": "US"}},
            "amount_money.currency: 'US' is not one of the published values",
        ),
        (
            "/v2/payments",
            {**PAYMENT, "amount_money": {"amount": 1000, "currencyy": "USD"}},
            "amount_money.currencyy: not a field of MoneyParams",
        ),
        ("/v2/payments", {k: v for k, v in PAYMENT.items() if k != "source_id"}, "source_id"),
        ("/v2/refunds", {"idempotency_key": "k", "payment_id": PAY}, "amount_money: required"),
        (
            "/v2/cards",
            {"idempotency_key": "k", "source_id": "x", "card": {"custmer_id": "C"}},
            "card.custmer_id: not a field of CardParams",
        ),
    ],
)
def test_the_validator_refuses_what_the_sdk_would_not_send(
    path: str, broken: dict[str, Any], why: str
) -> None:
    validate("POST", "/v2/payments", PAYMENT)
    with pytest.raises(ContractViolation, match=why):
        validate("POST", path, broken)


def test_the_fake_refuses_a_misspelled_field_and_checks_its_own_answers() -> None:
    fake = FakeSquare()
    with fake.client() as client:
        answer = client.post(
            f"https://{SANDBOX_HOST}/v2/payments",
            json={**PAYMENT, "amount_mony": {"amount": 1, "currency": "USD"}},
            headers={"Authorization": f"Bearer {ACCESS_TOKEN}"},
        )
    assert answer.status_code == 400
    assert "amount_mony: not a parameter" in fake.violations[0]
    with pytest.raises(ContractViolation, match="not a field of Payment"):
        validate_answer(
            response_type("GET", f"/v2/payments/{PAY}"), {"payment": {"id": PAY, "stauts": "x"}}
        )


def test_every_request_the_adapter_sends_conforms() -> None:
    fake = FakeSquare()
    transport, seen = checked_transport(validate_request, fake.handler)
    with httpx.Client(transport=transport) as client:
        gateway = SquareGateway(client)
        card = PaymentSource(MethodType.CARD, token="cnon:card-nonce-ok")
        sale = gateway.charge(CREDS, ChargeRequest(usd("10.00"), card, True, "s", "Invoice 3"))
        gateway.refund(CREDS, sale.reference, usd("4.00"), "r")
        gateway.status(CREDS, sale.reference)
        auth = gateway.charge(CREDS, ChargeRequest(usd("10.00"), card, False, "a"))
        gateway.capture(CREDS, auth.reference, usd("6.00"), "c")
        other = gateway.charge(CREDS, ChargeRequest(usd("5.00"), card, False, "o"))
        gateway.void(CREDS, other.reference, "v")
        saved = gateway.save_payment_method(
            CREDS,
            SaveMethodRequest(MethodType.CARD, fake.card_nonce(), "cus-1", None, "a@b.c", "Ada"),
        )
        vaulted = PaymentSource(
            MethodType.CARD,
            saved_method_ref=saved.method_ref,
            gateway_customer_ref=saved.gateway_customer_ref,
        )
        gateway.charge(CREDS, ChargeRequest(usd("2.00"), vaulted, True, "m"))
        bank = PaymentSource(MethodType.BANK_ACCOUNT, token="bnon:bank-nonce-ok")
        gateway.charge(CREDS, ChargeRequest(usd("30.00"), bank, True, "ach"))
    paths = {(r.method, r.url.path.rsplit("/", 1)[-1]) for r in seen}
    assert {("PUT", auth.reference), ("POST", "complete"), ("POST", "cancel")} <= paths
    assert {("POST", "refunds"), ("POST", "customers"), ("POST", "cards")} <= paths
    assert fake.violations == []


# --- answers shaped like the API Reference's examples ---------------------------------------


def payment(status: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": PAY,
        "created_at": "2026-11-25T10:13:29.337Z",
        "updated_at": "2026-11-25T10:13:29.549Z",
        "amount_money": {"amount": 1000, "currency": "USD"},
        "total_money": {"amount": 1000, "currency": "USD"},
        "approved_money": {"amount": 1000, "currency": "USD"},
        "status": status,
        "delay_duration": "PT168H",
        "delay_action": "CANCEL",
        "source_type": "CARD",
        "card_details": {
            "status": {"APPROVED": "AUTHORIZED", "COMPLETED": "CAPTURED"}.get(status, status),
            "card": {
                "card_brand": "VISA",
                "last_4": "5858",
                "exp_month": 12,
                "exp_year": 2030,
                "fingerprint": "sq-1-fingerprint",
                "card_type": "CREDIT",
                "bin": "453275",
            },
            "entry_method": "KEYED",
            "cvv_status": "CVV_ACCEPTED",
            "avs_status": "AVS_ACCEPTED",
            "statement_description": "SQ *DEFAULT TEST ACCOUNT",
        },
        "location_id": LOCATION_ID,
        "order_id": "pRsjRTgFWATl7so6ZZnwi4i8y3UZY",
        "risk_evaluation": {"created_at": "2026-11-25T10:13:29.549Z", "risk_level": "NORMAL"},
        "receipt_number": "R2B3",
        "version_token": "TPtNEOBOa6Qq6E3C3IjckSVOM6b3hMbfhjvTxHBQUsB6o",
        "application_details": {"square_product": "ECOMMERCE_API", "application_id": "sq0ids-x"},
        **extra,
    }


def refund(status: str, amount: int = 400) -> dict[str, Any]:
    return {
        "id": f"{PAY}_KlmAlMYQE4FBN2wn7Jq7QDD6aX7nVa6KUjRSlcHtXu9rGn38aP6",
        "status": status,
        "amount_money": {"amount": amount, "currency": "USD"},
        "payment_id": PAY,
        "order_id": "1JLEUZeEooAIX8HMqm9kvWd69aQZY",
        "created_at": "2026-11-25T10:23:52.301Z",
        "updated_at": "2026-11-25T10:23:52.301Z",
        "location_id": LOCATION_ID,
    }


def replies(*pairs: tuple[str, str, int, dict[str, Any]]) -> list[httpx.Response]:
    """Canned answers, each first checked against the SDK's response type for its call."""
    out = []
    for method, path, status, body in pairs:
        validate_answer(response_type(method, path), body)
        out.append(httpx.Response(status, json=body))
    return out


def sale(capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        usd("10.00"), PaymentSource(MethodType.CARD, token="cnon:card-nonce-ok"), capture, "k"
    )


def test_sale_authorize_capture_and_void() -> None:
    answers = replies(
        ("POST", "/v2/payments", 200, {"payment": payment("COMPLETED")}),
        ("POST", "/v2/payments", 200, {"payment": payment("APPROVED")}),
        ("GET", f"/v2/payments/{PAY}", 200, {"payment": payment("APPROVED")}),
        ("POST", f"/v2/payments/{PAY}/complete", 200, {"payment": payment("COMPLETED")}),
        ("POST", f"/v2/payments/{PAY}/cancel", 200, {"payment": payment("CANCELED")}),
    )
    with replaying(answers, validate_request) as (client, _):
        gateway = SquareGateway(client)
        assert gateway.charge(CREDS, sale()).status is GatewayStatus.CAPTURED
        assert gateway.charge(CREDS, sale(capture=False)).status is GatewayStatus.AUTHORIZED
        captured = gateway.capture(CREDS, PAY, usd("10.00"), "c")
        assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("10.00"))
        assert gateway.void(CREDS, PAY, "v").status is GatewayStatus.VOIDED


@pytest.mark.parametrize(
    ("status", "expected"),
    [("PENDING", GatewayStatus.PENDING), ("COMPLETED", GatewayStatus.REFUNDED)],
)
def test_a_refund_is_pending_until_square_completes_it(
    status: str, expected: GatewayStatus
) -> None:
    answers = replies(("POST", "/v2/refunds", 200, {"refund": refund(status)}))
    with replaying(answers, validate_request) as (client, _):
        result = SquareGateway(client).refund(CREDS, PAY, usd("4.00"), "r")
    assert (result.status, result.amount) == (expected, usd("4.00"))


def test_status_reads_each_refund() -> None:
    done, pending = refund("COMPLETED", 400), refund("PENDING", 600)
    pending["id"] = f"{PAY}_second"
    refunded = payment(
        "COMPLETED",
        refund_ids=[done["id"], pending["id"]],
        refunded_money={"amount": 1000, "currency": "USD"},
    )
    answers = replies(
        ("GET", f"/v2/payments/{PAY}", 200, {"payment": refunded}),
        ("GET", f"/v2/refunds/{done['id']}", 200, {"refund": done}),
        ("GET", f"/v2/refunds/{pending['id']}", 200, {"refund": pending}),
    )
    with replaying(answers, validate_request) as (client, _):
        result = SquareGateway(client).status(CREDS, PAY)
    # refunded_money counts the pending refund too: only the refunds themselves tell.
    assert (result.status, result.refunded, result.refunding) == (
        GatewayStatus.CAPTURED,
        usd("4.00"),
        usd("6.00"),
    )


def test_a_decline_is_an_error_answer_carrying_the_failed_payment() -> None:
    failed = payment("FAILED")
    failed["card_details"]["errors"] = [
        {"category": "PAYMENT_METHOD_ERROR", "code": "INSUFFICIENT_FUNDS", "detail": "declined"}
    ]
    body = {
        "errors": [
            {
                "category": "PAYMENT_METHOD_ERROR",
                "code": "INSUFFICIENT_FUNDS",
                "detail": "Authorization error: 'INSUFFICIENT_FUNDS'",
            }
        ],
        "payment": failed,
    }
    answers = replies(("POST", "/v2/payments", 402, body))
    with replaying(answers, validate_request) as (client, _), pytest.raises(Declined) as caught:
        SquareGateway(client).charge(CREDS, sale())
    assert caught.value.decline_code == "insufficient_funds"


# --- a pending refund over HTTP ------------------------------------------------------------


@pytest.fixture
def fake() -> FakeSquare:
    return FakeSquare()


@pytest.fixture
def hub(store_url: str, key_file: Path, fake: FakeSquare) -> Iterator[PayHub]:
    with fake.client() as http:
        hub = PayHub.open(
            store_url,
            key_file=key_file,
            clock=FixedClock(START),
            gateways={"square": SquareGateway(http)},
        )
        yield hub
        hub.close()


def test_a_pending_refund_is_settled_by_a_refresh(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeSquare,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-sq")
    put = client.put(
        "/api/merchant-accounts/shop-sq/credentials/square",
        json={
            "apiSecret": ACCESS_TOKEN,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"locationId": LOCATION_ID},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-sq"}
    made = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 50, "currency": "USD"},
            "gatewayName": "square",
            "paymentMethodToken": "cnon:card-nonce-ok",
        },
        headers=headers,
    ).json()
    assert made["status"] == "Captured", made
    base = f"/api/payments/square/transactions/{made['transactionId']}"

    first = client.post(
        f"{base}/refund", json={"amount": {"value": 20, "currency": "USD"}}, headers=headers
    ).json()
    assert (first["status"], first["refundedAmount"]["value"]) == ("RefundPending", 20)
    assert client.post(f"{base}/refund", headers=headers).status_code == 409
    assert client.get(f"{base}?refresh=true", headers=headers).json()["status"] == ("RefundPending")
    fake.finish_refunds("COMPLETED")
    done = client.get(f"{base}?refresh=true", headers=headers).json()
    assert (done["status"], done["refundedAmount"]["value"]) == ("PartiallyRefunded", 20)

    client.post(f"{base}/refund", headers=headers)
    fake.finish_refunds("FAILED")
    failed = client.get(f"{base}?refresh=true", headers=headers).json()
    assert (failed["status"], failed["refundedAmount"]["value"]) == ("PartiallyRefunded", 20)
    sent = [json.loads(r.content) for r in fake.requests if r.url.path == "/v2/refunds"]
    assert [s["amount_money"]["amount"] for s in sent] == [2000, 3000]
    assert fake.violations == []
