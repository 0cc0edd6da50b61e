"""Adyen against Checkout v71's models from Adyen's own library (``@adyen/api-library``):
the validator bites, and answers shaped like Adyen's API explorer examples (checked against
the same models) map to the right neutral result."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.adyen.adapter import RETURN_URL, AdyenGateway
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
from tests.gateways.adyen.contract import validate_answer, validate_error, validate_request
from tests.gateways.contracts import ContractViolation
from tests.gateways.contracts.replay import replaying

MERCHANT = "PayhubECOM"
CREDS = GatewayCredentials("AQE_fake_key", sandbox=True, fields={"merchantAccount": MERCHANT})
CARD = {
    "type": "scheme",
    "encryptedCardNumber": "adyenjs_0_1_25$X",
    "encryptedExpiryMonth": "adyenjs_0_1_25$X",
    "encryptedExpiryYear": "adyenjs_0_1_25$X",
    "encryptedSecurityCode": "adyenjs_0_1_25$X",
}
PAYMENT = {
    "amount": {"currency": "USD", "value": 1000},
    "reference": "YOUR_ORDER_NUMBER",
    "paymentMethod": CARD,
    "returnUrl": "https://your-company.example.com/checkout",
    "merchantAccount": MERCHANT,
    "shopperInteraction": "Ecommerce",
    "captureDelayHours": 0,
}


def _broken(change: str) -> dict[str, Any]:
    body = copy.deepcopy(PAYMENT)
    if change == "misspelled":
        body["shopperRefrence"] = "shopper-1"
    elif change == "enum":
        body["shopperInteraction"] = "Online"
    elif change == "required":
        del body["returnUrl"]
    elif change == "type":
        body["amount"]["value"] = "1000"
    elif change == "card field":
        body["paymentMethod"]["encryptedCardNumbr"] = "adyenjs_0_1_25$X"
    return body


def test_the_reference_payment_passes() -> None:
    validate_request("POST", "/payments", PAYMENT)


@pytest.mark.parametrize("change", ["misspelled", "enum", "required", "type", "card field"])
def test_the_models_refuse(change: str) -> None:
    with pytest.raises(ContractViolation):
        validate_request("POST", "/payments", _broken(change))


def test_a_modification_needs_its_required_fields_and_a_real_endpoint() -> None:
    path = "/payments/993617895204576J/captures"
    validate_request("POST", path, {"merchantAccount": MERCHANT, "amount": PAYMENT["amount"]})
    with pytest.raises(ContractViolation, match="amount"):
        validate_request("POST", path, {"merchantAccount": MERCHANT})
    with pytest.raises(ContractViolation):
        validate_request("POST", "/payments/993617895204576J/capture", {})


def test_the_fake_refuses_what_the_models_refuse() -> None:
    from tests.gateways.adyen.fake import API_KEY, FakeAdyen

    fake = FakeAdyen()
    answer = fake.handler(
        httpx.Request(
            "POST",
            "https://checkout-test.adyen.com/v71/payments",
            json=_broken("misspelled"),
            headers={"X-API-Key": API_KEY, "Content-Type": "application/json"},
        )
    )
    assert answer.status_code == 422
    assert "shopperRefrence" in answer.json()["message"]


# --- answers after the API explorer's examples --------------------------------------------

_AMOUNT = {"currency": "USD", "value": 1000}
PSP = "993617895204576J"


def _answer(path: str, body: Any, status: int = 200) -> httpx.Response:
    validate_answer("POST", path, body)
    return httpx.Response(status, json=body)


def _check(request: httpx.Request) -> None:
    path = request.url.path.removeprefix("/v71")
    validate_request(request.method, path, json.loads(request.content))


def _charge(capture: bool) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token=json.dumps(CARD))
    return ChargeRequest(Money.of(Decimal("10.00"), "USD"), source, capture, "idem-1")


def test_the_adapter_sends_a_return_url_adyen_requires() -> None:
    authorised = {
        "pspReference": PSP,
        "resultCode": "Authorised",
        "amount": _AMOUNT,
        "merchantReference": "idem-1",
    }
    with replaying([_answer("/payments", authorised)], _check) as (client, replay):
        AdyenGateway(client).charge(CREDS, _charge(True))
    assert json.loads(replay.requests[0].content)["returnUrl"] == RETURN_URL


@pytest.mark.parametrize(
    ("capture", "expected"), [(True, GatewayStatus.CAPTURED), (False, GatewayStatus.AUTHORIZED)]
)
def test_an_authorised_payment_maps_from_the_reference_answer(
    capture: bool, expected: GatewayStatus
) -> None:
    authorised = {
        "additionalData": {"authCode": "065696", "cardSummary": "1111"},
        "pspReference": PSP,
        "resultCode": "Authorised",
        "amount": _AMOUNT,
        "merchantReference": "idem-1",
    }
    with replaying([_answer("/payments", authorised)], _check) as (client, _):
        result = AdyenGateway(client).charge(CREDS, _charge(capture))
    assert (result.reference, result.status) == (PSP, expected)
    assert result.amount == Money.of(Decimal("10.00"), "USD")


@pytest.mark.parametrize(
    ("reason", "code", "expected"),
    [("Refused", "2", "generic_decline"), ("Not enough balance", "12", "insufficient_funds")],
)
def test_a_refusal_maps_from_the_reference_answer(reason: str, code: str, expected: str) -> None:
    refused = {
        "pspReference": PSP,
        "refusalReason": reason,
        "resultCode": "Refused",
        "refusalReasonCode": code,
        "amount": _AMOUNT,
        "merchantReference": "idem-1",
    }
    with (
        replaying([_answer("/payments", refused)], _check) as (client, _),
        pytest.raises(Declined) as caught,
    ):
        AdyenGateway(client).charge(CREDS, _charge(True))
    assert caught.value.decline_code == expected


def test_capture_refund_and_cancel_are_received_and_pending() -> None:
    usd = Money.of(Decimal("10.00"), "USD")
    base = {"merchantAccount": MERCHANT, "paymentPspReference": PSP, "status": "received"}
    with replaying(
        [
            _answer(
                f"/payments/{PSP}/captures",
                {
                    **base,
                    "pspReference": "JDD6LKT8MBLZNN84",
                    "amount": _AMOUNT,
                    "reference": "idem-2",
                },
                201,
            ),
            _answer(
                f"/payments/{PSP}/refunds",
                {
                    **base,
                    "pspReference": "KDD6LKT8MBLZNN85",
                    "amount": _AMOUNT,
                    "reference": "idem-3",
                },
                201,
            ),
            _answer(
                f"/payments/{PSP}/cancels",
                {**base, "pspReference": "LDD6LKT8MBLZNN86", "reference": "idem-4"},
                201,
            ),
        ],
        _check,
    ) as (client, _):
        gateway = AdyenGateway(client)
        captured = gateway.capture(CREDS, PSP, usd, "idem-2")
        refunded = gateway.refund(CREDS, PSP, usd, "idem-3")
        cancelled = gateway.void(CREDS, PSP, "idem-4")
    # Each move is named by its own pspReference: the one its webhook will carry.
    assert (captured.status, captured.support["payment"]) == (GatewayStatus.PENDING, PSP)
    assert captured.reference == captured.support["psp_reference"] != PSP
    assert (refunded.reference, refunded.status) == ("KDD6LKT8MBLZNN85", GatewayStatus.PENDING)
    assert (cancelled.reference, cancelled.status) == ("LDD6LKT8MBLZNN86", GatewayStatus.PENDING)


def test_status_cannot_be_read_from_adyen() -> None:
    with replaying([]) as (client, _), pytest.raises(GatewayError, match="no API"):
        AdyenGateway(client).status(CREDS, PSP)


def test_saving_a_card_maps_the_stored_payment_method_resource() -> None:
    stored = {
        "brand": "visa",
        "expiryMonth": "03",
        "expiryYear": "30",
        "holderName": "John Smith",
        "id": "M5N7TQ4TG5PFWR50",
        "lastFour": "1111",
        "shopperReference": "cus_1",
        "type": "scheme",
    }
    request = SaveMethodRequest(MethodType.CARD, json.dumps(CARD), "cus_1", None)
    with replaying([_answer("/storedPaymentMethods", stored)], _check) as (client, _):
        saved = AdyenGateway(client).save_payment_method(CREDS, request)
    assert (saved.method_ref, saved.brand, saved.last4) == ("M5N7TQ4TG5PFWR50", "visa", "1111")
    assert (saved.exp_month, saved.exp_year) == (3, 2030)


def test_an_error_answer_is_a_service_error() -> None:
    error = {
        "status": 422,
        "errorCode": "14_006",
        "message": "Invalid payment method data",
        "errorType": "validation",
        "pspReference": PSP,
    }
    validate_error(error)
    with pytest.raises(ContractViolation):
        validate_error({**error, "errorcode": "14_006"})


def test_the_result_codes_the_adapter_reads_are_adyens() -> None:
    import inspect
    import re

    from payhub.adapters.gateways.adyen import adapter as adyen
    from tests.gateways.adyen.contract import _model

    model = _model("PaymentResponse")
    assert model is not None
    known = model.enums["PaymentResponse.ResultCodeEnum"]
    source = inspect.getsource(adyen)
    named = set(re.findall(r'"([A-Z][a-z]+(?:[A-Z][a-z]+)*)"', source)) & {
        "Authorised", "Received", "Pending", "Refused", "Error", "Cancelled",
        "RedirectShopper", "IdentifyShopper", "ChallengeShopper", "PresentToShopper",
        "PartiallyAuthorised", "AuthenticationFinished", "Success", "Authorized",
    }  # fmt: skip
    assert named <= known
