"""Stripe: every form body and query the adapter sends fits the stripe package's param
TypedDicts (generated from Stripe's OpenAPI spec) for the API version the adapter pins, the
validator bites, and the adapter maps objects shaped like the API reference's examples."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
import stripe
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.stripe.adapter import STRIPE_VERSION, StripeGateway, form_pairs
from payhub.adapters.system import FixedClock
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayError,
    GatewayStatus,
    MethodType,
    PaymentSource,
    SaveMethodRequest,
)
from tests.conftest import START, Account
from tests.gateways.contracts import ContractViolation, checked_transport
from tests.gateways.contracts.replay import replaying
from tests.gateways.stripe.contract.validator import decode, validate, validate_request
from tests.gateways.stripe.fake import TEST_KEY, FakeStripe

CREDS = GatewayCredentials(api_secret=TEST_KEY, sandbox=True)
PI = "pi_3MtwBwLkdIwHu7ix28a3tqPa"


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def test_the_package_speaks_the_api_version_the_adapter_pins() -> None:
    # stripe 16.x speaks 2026-10-28.endive, where PaymentIntent create no longer takes
    # payment_method_types: the contract must be the one of the version we send.
    assert stripe.api_version == STRIPE_VERSION


# --- the validator bites -------------------------------------------------------------------

SALE = {
    "amount": 2000,
    "currency": "usd",
    "confirm": True,
    "capture_method": "automatic",
    "payment_method_types": ["card"],
    "payment_method": "pm_card_visa",
    "error_on_requires_action": True,
}


def test_bracket_notation_decodes_back_into_nested_params() -> None:
    params = {"a": {"b": {"c": "1"}}, "l": ["x", "y"], "m": {"k": "v"}}
    assert decode(form_pairs(params)) == params
    assert decode([("l[0]", "x"), ("l[1][k]", "v")]) == {"l": ["x", {"k": "v"}]}


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        ({**SALE, "amout": 2000}, "amout: unknown parameter"),
        ({**SALE, "capture_method": "manul"}, "capture_method: 'manul' is not one of"),
        ({k: v for k, v in SALE.items() if k != "currency"}, "currency: required"),
        ({**SALE, "confirm": "yes"}, "confirm: expected true or false"),
        ({**SALE, "amount": "20.00"}, "amount: expected an integer"),
        (
            {**SALE, "mandate_data": {"customer_acceptance": {"type": "ofline"}}},
            "mandate_data\\[customer_acceptance\\]\\[type\\]: 'ofline' is not one of",
        ),
        (
            {**SALE, "mandate_data": {"customer_acceptance": {"type": "offline", "of": "x"}}},
            "\\[of\\]: unknown parameter",
        ),
    ],
)
def test_the_validator_refuses_what_stripes_params_do_not_allow(broken: Any, why: str) -> None:
    validate("POST", "/v1/payment_intents", form_pairs(SALE))
    with pytest.raises(ContractViolation, match=why):
        validate("POST", "/v1/payment_intents", form_pairs(broken))


def test_the_fake_answers_a_misspelled_param_400_and_keeps_it() -> None:
    fake = FakeStripe()
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        answer = client.post(
            "https://api.stripe.com/v1/refunds",
            data={"payment_intent": PI, "amonut": "100"},
            headers={"Authorization": f"Bearer {TEST_KEY}"},
        )
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert "amonut: unknown parameter of RefundCreateParams" in fake.violations[0]


def test_every_request_the_adapter_sends_fits_the_params() -> None:
    fake = FakeStripe()
    transport, seen = checked_transport(validate_request, fake.handler)
    with httpx.Client(transport=transport) as client:
        gateway = StripeGateway(client)
        card = PaymentSource(MethodType.CARD, token="pm_card_visa")
        sale = gateway.charge(CREDS, ChargeRequest(usd("20.00"), card, True, "s", "Invoice 9"))
        gateway.refund(CREDS, sale.reference, usd("5.00"), "r")
        auth = gateway.charge(CREDS, ChargeRequest(usd("20.00"), card, False, "a"))
        gateway.capture(CREDS, auth.reference, usd("15.00"), "c")
        other = gateway.charge(CREDS, ChargeRequest(usd("9.00"), card, False, "o"))
        gateway.void(CREDS, other.reference, "v")
        gateway.status(CREDS, sale.reference)
        saved = gateway.save_payment_method(
            CREDS,
            SaveMethodRequest(MethodType.CARD, fake.add_card(), "cus-1", None, "a@b.c", "Ada"),
        )
        vaulted = PaymentSource(
            MethodType.CARD,
            saved_method_ref=saved.method_ref,
            gateway_customer_ref=saved.gateway_customer_ref,
        )
        gateway.charge(CREDS, ChargeRequest(usd("7.00"), vaulted, True, "m"))
        bank = PaymentSource(MethodType.BANK_ACCOUNT, token="pm_usBankAccount_success")
        gateway.charge(CREDS, ChargeRequest(usd("30.00"), bank, True, "ach"))
        gateway.save_payment_method(
            CREDS,
            SaveMethodRequest(MethodType.BANK_ACCOUNT, "pm_usBankAccount_success", "cus-1", None),
        )
        declined = PaymentSource(MethodType.CARD, token="pm_card_visa_chargeDeclined")
        with pytest.raises(Declined):
            gateway.charge(CREDS, ChargeRequest(usd("3.00"), declined, True, "d"))
    assert {(r.method, r.url.path.split("/")[2]) for r in seen} >= {
        ("POST", "payment_intents"),
        ("GET", "payment_intents"),
        ("POST", "refunds"),
        ("POST", "customers"),
        ("POST", "payment_methods"),
        ("POST", "setup_intents"),
    }
    assert fake.violations == []


# --- objects shaped like the API reference's examples ---------------------------------------


def intent(status: str, **extra: Any) -> dict[str, Any]:
    """A PaymentIntent as the reference's example object shows it."""
    return {
        "id": PI,
        "object": "payment_intent",
        "amount": 2000,
        "amount_capturable": 0,
        "amount_received": 2000 if status == "succeeded" else 0,
        "capture_method": "automatic",
        "client_secret": f"{PI}_secret_YrKJUKribcBjcG8HVhfZluoGH",
        "confirmation_method": "automatic",
        "created": 1680800504,
        "currency": "usd",
        "last_payment_error": None,
        "latest_charge": "ch_3MtwBwLkdIwHu7ix28a3tqPa",
        "livemode": False,
        "metadata": {},
        "payment_method": "pm_1MtwBwLkdIwHu7ixAb9bYqXH",
        "payment_method_types": ["card"],
        "status": status,
        **extra,
    }


def answer(body: dict[str, Any], status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body, headers={"Request-Id": "req_4ZkGc1PbqTtLnJ"})


def sale(capture: bool = True) -> ChargeRequest:
    card = PaymentSource(MethodType.CARD, token="pm_card_visa")
    return ChargeRequest(usd("20.00"), card, capture, "k")


def refund(status: str, amount: int = 500) -> dict[str, Any]:
    return {
        "id": "re_1Nispe2eZvKYlo2Cd31jOCgZ",
        "object": "refund",
        "amount": amount,
        "charge": "ch_3MtwBwLkdIwHu7ix28a3tqPa",
        "created": 1692942318,
        "currency": "usd",
        "payment_intent": PI,
        "reason": None,
        "status": status,
    }


def test_a_sale_an_authorization_a_capture_and_a_void() -> None:
    answers = [
        answer(intent("succeeded")),
        answer(intent("requires_capture", capture_method="manual", amount_capturable=2000)),
        answer(intent("succeeded", capture_method="manual", amount_received=1500)),
        answer(intent("canceled", cancellation_reason="requested_by_customer")),
    ]
    with replaying(answers, validate_request) as (client, _):
        gateway = StripeGateway(client)
        assert gateway.charge(CREDS, sale()).status is GatewayStatus.CAPTURED
        auth = gateway.charge(CREDS, sale(capture=False))
        assert (auth.status, auth.amount) == (GatewayStatus.AUTHORIZED, usd("20.00"))
        captured = gateway.capture(CREDS, PI, usd("15.00"), "c")
        assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("15.00"))
        assert gateway.void(CREDS, PI, "v").status is GatewayStatus.VOIDED


@pytest.mark.parametrize(
    ("status", "expected"),
    [("succeeded", GatewayStatus.REFUNDED), ("pending", GatewayStatus.PENDING)],
)
def test_a_refund(status: str, expected: GatewayStatus) -> None:
    with replaying([answer(refund(status))], validate_request) as (client, _):
        result = StripeGateway(client).refund(CREDS, PI, usd("5.00"), "r")
    assert (result.status, result.amount) == (expected, usd("5.00"))


def test_a_refund_that_failed_at_once_is_an_error_not_a_refund() -> None:
    failed = {**refund("failed"), "failure_reason": "charge_for_pending_refund_disputed"}
    with (
        replaying([answer(failed)], validate_request) as (client, _),
        pytest.raises(GatewayError, match="did not refund"),
    ):
        StripeGateway(client).refund(CREDS, PI, usd("5.00"), "r")


def test_status_reads_finished_and_pending_refunds_from_the_charge() -> None:
    charge = {
        "id": "ch_3MtwBwLkdIwHu7ix28a3tqPa",
        "object": "charge",
        "amount": 2000,
        "amount_captured": 2000,
        "amount_refunded": 1500,
        "refunded": False,
        "refunds": {
            "object": "list",
            "data": [refund("pending", 1000), refund("succeeded", 500)],
            "has_more": False,
            "url": "/v1/charges/ch_3MtwBwLkdIwHu7ix28a3tqPa/refunds",
        },
    }
    with replaying([answer(intent("succeeded", latest_charge=charge))], validate_request) as (
        client,
        replay,
    ):
        result = StripeGateway(client).status(CREDS, PI)
    assert result.status is GatewayStatus.CAPTURED
    assert (result.refunded, result.refunding) == (usd("5.00"), usd("10.00"))
    assert replay.requests[0].url.params.get_list("expand[]") == ["latest_charge.refunds"]


def test_a_card_decline_is_402_with_the_intent() -> None:
    declined = {
        "error": {
            "code": "card_declined",
            "decline_code": "insufficient_funds",
            "doc_url": "https://stripe.com/docs/error-codes/card-declined",
            "message": "Your card has insufficient funds.",
            "payment_intent": intent(
                "requires_payment_method",
                last_payment_error={"code": "card_declined", "decline_code": "insufficient_funds"},
            ),
            "request_log_url": "https://dashboard.stripe.com/test/logs/req_4ZkGc1PbqTtLnJ",
            "type": "card_error",
        }
    }
    with (
        replaying([answer(declined, 402)], validate_request) as (client, _),
        pytest.raises(Declined) as caught,
    ):
        StripeGateway(client).charge(CREDS, sale())
    assert caught.value.decline_code == "insufficient_funds"


# --- a pending refund over HTTP ------------------------------------------------------------


@pytest.fixture
def fake() -> FakeStripe:
    return FakeStripe()


@pytest.fixture
def hub(store_url: str, key_file: Path, fake: FakeStripe) -> Iterator[PayHub]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as http:
        hub = PayHub.open(
            store_url,
            key_file=key_file,
            clock=FixedClock(START),
            gateways={"stripe": StripeGateway(http)},
        )
        yield hub
        hub.close()


def test_a_pending_refund_is_settled_by_a_refresh(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeStripe,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-stripe")
    client.put(
        "/api/merchant-accounts/shop-stripe/credentials/stripe",
        json={"apiSecret": TEST_KEY, "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-stripe"}
    made = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 20, "currency": "USD"},
            "gatewayName": "stripe",
            "paymentMethodToken": "pm_card_visa",
        },
        headers=headers,
    )
    assert made.json()["status"] == "Captured", made.text
    base = f"/api/payments/stripe/transactions/{made.json()['transactionId']}"
    fake.refunds_pending = True

    first = client.post(
        f"{base}/refund", json={"amount": {"value": 5, "currency": "USD"}}, headers=headers
    )
    assert first.json()["status"] == "RefundPending", first.text
    assert client.get(f"{base}?refresh=true", headers=headers).json()["status"] == ("RefundPending")
    fake.finish_refunds("succeeded")
    done = client.get(f"{base}?refresh=true", headers=headers).json()
    assert (done["status"], done["refundedAmount"]["value"]) == ("PartiallyRefunded", 5)

    client.post(f"{base}/refund", headers=headers)
    fake.finish_refunds("failed")
    failed = client.get(f"{base}?refresh=true", headers=headers).json()
    assert (failed["status"], failed["refundedAmount"]["value"]) == ("PartiallyRefunded", 5)
    assert fake.violations == []
    sent = [dict(parse_qsl(r.content.decode())) for r in fake.posts("/v1/refunds")]
    assert [s["amount"] for s in sent] == ["500", "1500"]
