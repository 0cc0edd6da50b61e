"""PayPal against its own server SDK's endpoints and models (``paypal-server-sdk``): the
validator bites, the adapter's decline table uses PayPal's processor codes, and answers
shaped like the Orders v2 / Payments v2 reference examples (checked against the SDK's
models) map to the right neutral result."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.paypal import adapter as paypal
from payhub.adapters.gateways.paypal.adapter import PayPalGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayStatus,
    MethodType,
    PaymentSource,
)
from tests.gateways.contracts import ContractViolation
from tests.gateways.contracts.replay import replaying
from tests.gateways.paypal.contract import (
    _classes,
    _enum_values,
    validate_answer,
    validate_request,
)

CREDS = GatewayCredentials("EFakeSecret", sandbox=True, fields={"clientId": "AFakeClient"})
ORDER = "5O190127TN364715T"
VAULTED = {
    "intent": "CAPTURE",
    "purchase_units": [
        {"amount": {"currency_code": "USD", "value": "100.00"}, "custom_id": "ph-1"}
    ],
    "payment_source": {
        "card": {
            "vault_id": "8kk8451t",
            "stored_credential": {
                "payment_initiator": "MERCHANT",
                "payment_type": "UNSCHEDULED",
                "usage": "SUBSEQUENT",
            },
        }
    },
}


def _broken(change: str) -> dict[str, Any]:
    body = copy.deepcopy(VAULTED)
    if change == "misspelled":
        body["purchase_units"][0]["custom_idd"] = body["purchase_units"][0].pop("custom_id")
    elif change == "enum":
        body["intent"] = "SALE"
    elif change == "required":
        del body["purchase_units"][0]["amount"]["currency_code"]
    elif change == "type":
        body["purchase_units"][0]["amount"]["value"] = 100
    elif change == "nested enum":
        body["payment_source"]["card"]["stored_credential"]["usage"] = "LATER"
    return body


def test_the_reference_order_passes() -> None:
    validate_request("POST", "/v2/checkout/orders", VAULTED)


@pytest.mark.parametrize("change", ["misspelled", "enum", "required", "type", "nested enum"])
def test_the_models_refuse(change: str) -> None:
    with pytest.raises(ContractViolation):
        validate_request("POST", "/v2/checkout/orders", _broken(change))


def test_an_unknown_endpoint_or_method_is_refused() -> None:
    with pytest.raises(ContractViolation):
        validate_request("POST", f"/v2/checkout/orders/{ORDER}/captures", {})
    with pytest.raises(ContractViolation):
        validate_request("PUT", f"/v2/checkout/orders/{ORDER}", VAULTED)


def test_a_patch_must_use_a_json_patch_operation() -> None:
    good = [{"op": "replace", "path": "/intent", "value": "AUTHORIZE"}]
    validate_request("PATCH", f"/v2/checkout/orders/{ORDER}", good)
    with pytest.raises(ContractViolation):
        validate_request("PATCH", f"/v2/checkout/orders/{ORDER}", [{**good[0], "op": "set"}])


def test_the_fake_refuses_what_the_models_refuse() -> None:
    from tests.gateways.paypal.fake import CLIENT_ID, SECRET, FakePayPal

    fake = FakePayPal()
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        token = client.post(
            "https://api-m.sandbox.paypal.com/v1/oauth2/token",
            auth=(CLIENT_ID, SECRET),
            data={"grant_type": "client_credentials"},
        ).json()["access_token"]
        answer = client.post(
            "https://api-m.sandbox.paypal.com/v2/checkout/orders",
            json=_broken("misspelled"),
            headers={"Authorization": f"Bearer {token}"},
        )
    assert answer.status_code == 400
    assert "custom_idd" in answer.json()["details"][0]["description"]


def test_the_decline_table_uses_paypal_processor_codes() -> None:
    known = _enum_values(_classes()["ProcessorResponseCode"])
    assert set(paypal._PROCESSOR_CODES) <= known


# --- answers after the Orders v2 and Payments v2 reference examples ------------------------

_TOKEN = {
    "scope": "https://uri.paypal.com/services/payments/payment",
    "access_token": "A21AAFakeAccessToken",
    "token_type": "Bearer",
    "expires_in": 32400,
}
_LINK = [
    {
        "href": "https://api-m.sandbox.paypal.com/v2/checkout/orders/x",
        "rel": "self",
        "method": "GET",
    }
]
_AMOUNT = {"currency_code": "USD", "value": "100.00"}


def _order(status: str, payments: dict[str, Any] | None = None, intent: str = "CAPTURE") -> Any:
    unit: dict[str, Any] = {"reference_id": "default", "amount": _AMOUNT, "custom_id": "x"}
    if payments is not None:
        unit["payments"] = payments
    return {
        "id": ORDER,
        "intent": intent,
        "status": status,
        "payment_source": {
            "card": {
                "name": "Firstname Lastname",
                "last_digits": "7704",
                "expiry": "2030-11",
                "brand": "VISA",
                "type": "CREDIT",
            }
        },
        "purchase_units": [unit],
        "create_time": "2026-01-15T17:49:20Z",
        "links": _LINK,
    }


def _capture(status: str, code: str = "0000", ident: str = "3C679366HH908993F") -> Any:
    return {
        "id": ident,
        "status": status,
        "amount": _AMOUNT,
        "final_capture": True,
        "seller_protection": {"status": "NOT_ELIGIBLE"},
        "processor_response": {"avs_code": "A", "cvv_code": "M", "response_code": code},
        "create_time": "2026-01-15T17:49:21Z",
        "links": _LINK,
    }


def _authorization(status: str) -> Any:
    return {
        "id": "0AW2184448108334S",
        "status": status,
        "amount": _AMOUNT,
        "expiration_time": "2026-02-13T17:49:21Z",
        "processor_response": {"avs_code": "A", "cvv_code": "M", "response_code": "0000"},
        "links": _LINK,
    }


def _answer(method: str, path: str, body: Any, status: int = 200) -> httpx.Response:
    validate_answer(method, path, body)
    return httpx.Response(status, json=body, headers={"PayPal-Debug-Id": "f1c2d3e4a5b6"})


def _check(request: httpx.Request) -> None:
    if request.url.path != "/v1/oauth2/token":
        body = json.loads(request.content) if request.content else None
        validate_request(request.method, request.url.path, body)


OP = f"/v2/checkout/orders/{ORDER}"


def _card(capture: bool) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token=ORDER)
    return ChargeRequest(Money.of(Decimal("100.00"), "USD"), source, capture, "idem-1")


def test_a_sale_of_a_card_fields_order_maps_from_the_reference_answers() -> None:
    with replaying(
        [
            _answer("POST", "/v1/oauth2/token", _TOKEN),
            _answer("GET", OP, _order("APPROVED")),
            httpx.Response(204),
            _answer(
                "POST",
                f"{OP}/capture",
                _order("COMPLETED", {"captures": [_capture("COMPLETED")]}),
                201,
            ),
        ],
        _check,
    ) as (client, _):
        result = PayPalGateway(client).charge(CREDS, _card(True))
    assert (result.reference, result.status) == (ORDER, GatewayStatus.CAPTURED)
    assert result.amount == Money.of(Decimal("100.00"), "USD")


def test_an_authorization_then_capture_refund_and_void_map_from_the_reference_answers() -> None:
    authorized = _order("COMPLETED", {"authorizations": [_authorization("CREATED")]}, "AUTHORIZE")
    captured = _order(
        "COMPLETED",
        {"authorizations": [_authorization("CAPTURED")], "captures": [_capture("COMPLETED")]},
        "AUTHORIZE",
    )
    refund = {"id": "1JU08902781691411", "status": "COMPLETED", "amount": _AMOUNT, "links": _LINK}
    auth_path = "/v2/payments/authorizations/0AW2184448108334S"
    _voided = {k: v for k, v in _authorization("VOIDED").items() if k != "processor_response"}
    usd = Money.of(Decimal("100.00"), "USD")
    with replaying(
        [
            _answer("POST", "/v1/oauth2/token", _TOKEN),
            _answer("GET", OP, _order("APPROVED", intent="AUTHORIZE")),
            httpx.Response(204),
            _answer("POST", f"{OP}/authorize", authorized, 201),
            _answer("GET", OP, authorized),
            _answer("POST", f"{auth_path}/capture", _capture("COMPLETED"), 201),
            _answer("GET", OP, captured),
            _answer("POST", "/v2/payments/captures/3C679366HH908993F/refund", refund, 201),
            _answer("GET", OP, authorized),
            _answer(
                "POST",
                f"{auth_path}/void",
                {k: v for k, v in _authorization("VOIDED").items() if k != "processor_response"},
            ),
        ],
        _check,
    ) as (client, _):
        gateway = PayPalGateway(client)
        auth = gateway.charge(CREDS, _card(False))
        capture = gateway.capture(CREDS, ORDER, usd, "idem-2")
        refunded = gateway.refund(CREDS, ORDER, usd, "idem-3")
        voided = gateway.void(CREDS, ORDER, "idem-4")
    assert auth.status is GatewayStatus.AUTHORIZED
    assert capture.status is GatewayStatus.CAPTURED
    assert (refunded.reference, refunded.status) == ("1JU08902781691411", GatewayStatus.REFUNDED)
    assert voided.status is GatewayStatus.VOIDED


def test_status_maps_a_refunded_order_from_the_reference_answer() -> None:
    refunded = _order("COMPLETED", {"captures": [_capture("REFUNDED")]})
    with replaying(
        [_answer("POST", "/v1/oauth2/token", _TOKEN), _answer("GET", OP, refunded)], _check
    ) as (client, _):
        result = PayPalGateway(client).status(CREDS, ORDER)
    assert result.status is GatewayStatus.REFUNDED


@pytest.mark.parametrize(
    ("code", "expected"), [("5120", "insufficient_funds"), ("0500", "generic_decline")]
)
def test_a_declined_capture_maps_from_the_reference_answer(code: str, expected: str) -> None:
    declined = _order("COMPLETED", {"captures": [_capture("DECLINED", code)]})
    with (
        replaying(
            [
                _answer("POST", "/v1/oauth2/token", _TOKEN),
                _answer("GET", OP, _order("APPROVED")),
                httpx.Response(204),
                _answer("POST", f"{OP}/capture", declined, 201),
            ],
            _check,
        ) as (client, _),
        pytest.raises(Declined) as caught,
    ):
        PayPalGateway(client).charge(CREDS, _card(True))
    assert caught.value.decline_code == expected
