"""Checkout.com: every request the adapter sends conforms to checkout-sdk's request classes and
enums, the validator bites, and the adapter maps answers shaped like the API reference's own
examples (201 ``Authorized`` for a ``capture: true`` payment, 202 actions, a 201 decline)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.checkout_com.adapter import CheckoutComGateway
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
from tests.gateways.checkout_com.contract.validator import validate, validate_request
from tests.gateways.checkout_com.fake import SANDBOX_KEY, FakeCheckoutCom
from tests.gateways.contracts import ContractViolation, checked_transport
from tests.gateways.contracts.replay import replaying

CREDS = GatewayCredentials(SANDBOX_KEY, sandbox=True, fields={"processingChannelId": "pc_1"})
PAY = "pay_mbabizu24mvu3mela5njyhpit4"
HEADERS = {"Cko-Request-Id": "0120e756-6d00-453c-a398-ff1643f9a873"}


def usd(value: str) -> Money:
    return Money.of(Decimal(value), "USD")


def answer(status: int, body: dict[str, Any]) -> httpx.Response:
    return httpx.Response(status, json=body, headers=HEADERS)


def payment(status: str, approved: bool = True, code: str = "10000", **extra: Any) -> Any:
    """A ``POST /payments`` answer shaped as the reference's example response."""
    return {
        "id": PAY,
        "action_id": "act_mbabizu24mvu3mela5njyhpit4",
        "amount": 6540,
        "currency": "USD",
        "approved": approved,
        "status": status,
        "auth_code": "770687" if approved else "",
        "response_code": code,
        "response_summary": "Approved" if approved else "Declined - Do Not Honour",
        "risk": {"flagged": False},
        "source": {
            "type": "card",
            "id": "src_nwd3m4in3hkuddfpjsaevunhdy",
            "expiry_month": 6,
            "expiry_year": 2030,
            "scheme": "Visa",
            "last4": "4242",
            "bin": "424242",
        },
        "processed_on": "2026-11-25T10:11:12Z",
        "reference": "ORD-5023-4E89",
        "_links": {"self": {"href": f"https://api.sandbox.checkout.com/payments/{PAY}"}},
        **extra,
    }


def details(status: str, captured: int, refunded: int) -> dict[str, Any]:
    """A ``GET /payments/{id}`` answer shaped as the reference's example (with balances)."""
    return {
        "id": PAY,
        "requested_on": "2026-11-25T10:11:12Z",
        "source": {"type": "card", "last4": "4242", "scheme": "Visa"},
        "amount": 6540,
        "currency": "USD",
        "payment_type": "Regular",
        "reference": "ORD-5023-4E89",
        "status": status,
        "approved": True,
        "balances": {
            "total_authorized": 6540,
            "total_voided": 0,
            "available_to_void": 0,
            "total_captured": captured,
            "available_to_capture": 0,
            "total_refunded": refunded,
            "available_to_refund": captured - refunded,
        },
    }


ACCEPTED = {"action_id": "act_y3oqhf46pyzuxjbcn2giaqnb44", "reference": "ORD-5023-4E89"}


def sale(capture: bool = True) -> ChargeRequest:
    return ChargeRequest(
        usd("65.40"), PaymentSource(MethodType.CARD, token="tok_4gzeau"), capture, "k"
    )


# --- the validator bites -------------------------------------------------------------------


GOOD = {
    "amount": 6540,
    "currency": "USD",
    "capture": True,
    "reference": "k",
    "payment_type": "Regular",
    "source": {"type": "token", "token": "tok_4gzeau"},
}


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        ({**GOOD, "captur": True}, "captur: not a field of PaymentRequest"),
        ({**GOOD, "currency": "USX"}, "is not one of Currency"),
        ({**GOOD, "payment_type": "regular"}, "is not one of PaymentType"),
        ({**GOOD, "source": {"type": "tokn", "token": "t"}}, "source.type"),
        ({**GOOD, "source": {"type": "token", "tokn": "t"}}, "source.tokn: not a field"),
        ({**GOOD, "amount": "65.40"}, "amount: expected an integer"),
        ({k: v for k, v in GOOD.items() if k != "currency"}, "currency: required"),
    ],
)
def test_the_validator_refuses_what_the_sdk_does_not_model(broken: Any, why: str) -> None:
    validate("POST", "/payments", GOOD)
    with pytest.raises(ContractViolation, match=why):
        validate("POST", "/payments", broken)


def test_the_fake_answers_a_misspelled_field_422_as_checkout_com_would() -> None:
    fake = FakeCheckoutCom()
    request = httpx.Request(
        "POST",
        "https://api.sandbox.checkout.com/payments/pay_1/refunds",
        headers={"Authorization": f"Bearer {SANDBOX_KEY}"},
        content=json.dumps({"amount": 100, "referense": "r"}).encode(),
    )
    response = fake.handler(request)
    assert response.status_code == 422
    assert "referense: not a field of RefundRequest" in fake.violations[0]
    with pytest.raises(ContractViolation):
        validate("POST", "/payments/pay_1/capture", {})  # not a route: /captures


def test_every_request_the_adapter_sends_conforms() -> None:
    fake = FakeCheckoutCom()
    transport, seen = checked_transport(validate_request, fake.handler)
    with httpx.Client(transport=transport) as client:
        gateway = CheckoutComGateway(client)
        saved = gateway.save_payment_method(
            CREDS,
            SaveMethodRequest(MethodType.CARD, fake.token(), "cus-1", None, "a@b.example", "Ada"),
        )
        source = PaymentSource(
            MethodType.CARD, saved_method_ref=saved.method_ref, gateway_customer_ref="cus_1"
        )
        gateway.charge(CREDS, ChargeRequest(usd("5.00"), source, True, "m", "Invoice 7"))
        card = PaymentSource(MethodType.CARD, token=fake.token())
        auth = gateway.charge(CREDS, ChargeRequest(usd("10.00"), card, False, "a"))
        gateway.capture(CREDS, auth.reference, usd("10.00"), "c")
        fake.settle()
        gateway.refund(CREDS, auth.reference, usd("1.00"), "r")
        other = gateway.charge(
            CREDS,
            ChargeRequest(
                usd("3.00"), PaymentSource(MethodType.CARD, token=fake.token()), False, "o"
            ),
        )
        gateway.void(CREDS, other.reference, "v")
        gateway.status(CREDS, auth.reference)
    assert len(seen) == 9
    assert fake.violations == []


# --- answers shaped like the reference's examples ------------------------------------------


def test_a_sale_answered_authorized_is_accepted_with_its_capture_pending() -> None:
    with replaying([answer(201, payment("Authorized"))], validate_request) as (client, _):
        result = CheckoutComGateway(client).charge(CREDS, sale())
    assert (result.status, result.reference, result.amount) == (
        GatewayStatus.AUTHORIZED,
        PAY,
        usd("65.40"),
    )
    assert result.support["capture"] == "pending"


def test_an_authorization() -> None:
    with replaying([answer(201, payment("Authorized"))], validate_request) as (client, _):
        result = CheckoutComGateway(client).charge(CREDS, sale(capture=False))
    assert result.status is GatewayStatus.AUTHORIZED
    assert "capture" not in result.support


@pytest.mark.parametrize("kind", ["capture", "refund", "void"])
def test_actions_answered_202_are_pending(kind: str) -> None:
    with replaying([answer(202, ACCEPTED)], validate_request) as (client, replay):
        gateway = CheckoutComGateway(client)
        if kind == "void":
            result = gateway.void(CREDS, PAY, "v-1")
        else:
            result = getattr(gateway, kind)(CREDS, PAY, usd("65.40"), f"{kind}-1")
    assert result.status is GatewayStatus.PENDING
    assert result.support["action_id"] == ACCEPTED["action_id"]
    assert replay.requests[0].url.path == f"/payments/{PAY}/{kind}s"


@pytest.mark.parametrize(
    ("status", "captured", "refunded", "expected"),
    [
        ("Authorized", 0, 0, GatewayStatus.AUTHORIZED),
        ("Captured", 6540, 0, GatewayStatus.CAPTURED),
        ("Partially Captured", 3000, 0, GatewayStatus.CAPTURED),
        ("Partially Refunded", 6540, 1000, GatewayStatus.CAPTURED),
        ("Refunded", 6540, 6540, GatewayStatus.REFUNDED),
        ("Voided", 0, 0, GatewayStatus.VOIDED),
    ],
)
def test_status_reads_the_state_and_balances(
    status: str, captured: int, refunded: int, expected: GatewayStatus
) -> None:
    with replaying([answer(200, details(status, captured, refunded))], validate_request) as (
        client,
        _,
    ):
        result = CheckoutComGateway(client).status(CREDS, PAY)
    assert result.status is expected
    assert result.captured == Money.from_minor_units(captured, "USD")
    assert result.refunded == Money.from_minor_units(refunded, "USD")


def test_a_decline_is_201_not_approved() -> None:
    declined = payment("Declined", approved=False, code="20005")
    with (
        replaying([answer(201, declined)], validate_request) as (client, _),
        pytest.raises(Declined) as caught,
    ):
        CheckoutComGateway(client).charge(CREDS, sale())
    assert caught.value.decline_code == "generic_decline"
    assert caught.value.gateway_message == "Declined - Do Not Honour"


def test_a_3ds_pending_answer_is_not_taken_as_a_payment() -> None:
    pending = {
        "id": PAY,
        "status": "Pending",
        "reference": "ORD-5023-4E89",
        "3ds": {"downgraded": False, "enrolled": "Y"},
        "_links": {"redirect": {"href": "https://3ds2-sandbox.ckotech.co/interceptor/x"}},
    }
    with (
        replaying([answer(202, pending)], validate_request) as (client, _),
        pytest.raises(Declined, match="3-D Secure"),
    ):
        CheckoutComGateway(client).charge(CREDS, sale())


def test_a_422_names_its_error_codes() -> None:
    refused = {
        "request_id": "0HL80RJLS76I7",
        "error_type": "request_invalid",
        "error_codes": ["payment_source_required"],
    }
    with (
        replaying([answer(422, refused)], validate_request) as (client, _),
        pytest.raises(GatewayError, match="payment_source_required"),
    ):
        CheckoutComGateway(client).charge(CREDS, sale())
