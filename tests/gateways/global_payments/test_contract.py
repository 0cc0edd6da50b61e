"""Global Payments (GP-API) against the request builders of its own Python SDK
(``globalpayments-api``): the comparison bites, and answers shaped like the GP-API
reference's examples (statuses from the SDK's TransactionStatus) map to the right neutral
result."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest
from globalpayments.api.builders.request_builder.GpApi.GpApiSessionInfo import GpApiSessionInfo

from payhub.adapters.gateways.global_payments.adapter import GlobalPaymentsGateway
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
from tests.gateways.contracts import ContractViolation
from tests.gateways.contracts.replay import replaying
from tests.gateways.global_payments.contract import validate_request, validate_status

APP_KEY = "QT8Av1NkGBxvJZbA"
CREDS = GatewayCredentials(
    APP_KEY, sandbox=True, fields={"appId": "4gPqnGBkppGYvoE5UX9EWQlotTxGUDbs"}
)
SALE = {
    "account_name": "transaction_processing",
    "type": "SALE",
    "channel": "CNP",
    "capture_mode": "AUTO",
    "amount": "1999",
    "currency": "USD",
    "country": "US",
    "reference": "ph-1",
    "payment_method": {"entry_mode": "ECOM", "id": "PMT_5e6a9a4c-3e1b-4a8f-9d0b-7b3f9b1c2d3e"},
}


def _broken(change: str) -> dict[str, Any]:
    body = copy.deepcopy(SALE)
    if change == "misspelled":
        body["referense"] = body.pop("reference")
    elif change == "enum":
        body["channel"] = "ECOM"
    elif change == "capture mode":
        body["capture_mode"] = "AUTOMATIC"
    elif change == "decimal amount":
        body["amount"] = "19.99"
    elif change == "missing":
        del body["country"]
    elif change == "nested":
        body["payment_method"]["entry_mode"] = "MANUAL"
    return body


def test_the_reference_sale_passes() -> None:
    validate_request("POST", "/transactions", SALE)


@pytest.mark.parametrize(
    "change", ["misspelled", "enum", "capture mode", "decimal amount", "missing", "nested"]
)
def test_the_sdk_comparison_refuses(change: str) -> None:
    with pytest.raises(ContractViolation):
        validate_request("POST", "/transactions", _broken(change))


def test_the_endpoints_are_the_sdks() -> None:
    validate_request("PATCH", "/payment-methods/PMT_1", {"usage_mode": "MULTIPLE"})
    with pytest.raises(ContractViolation, match="PATCH /payment-methods/PMT_1"):
        validate_request("PATCH", "/payment-methods/PMT_1/edit", {"usage_mode": "MULTIPLE"})
    with pytest.raises(ContractViolation):
        validate_request("PATCH", "/payment-methods/PMT_1", {"usage_mode": "FOREVER"})
    validate_request("POST", "/transactions/TRN_1/reversal", {})
    with pytest.raises(ContractViolation):
        validate_request("POST", "/transactions/TRN_1/void", {})
    with pytest.raises(ContractViolation):
        validate_status("SETTLED")


def test_the_fake_refuses_what_the_sdk_would_not_send() -> None:
    from tests.gateways.global_payments.fake import FakeGlobalPayments

    fake = FakeGlobalPayments()
    token = fake.single_use_token()
    body = _broken("misspelled")
    body["payment_method"]["id"] = token
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        gateway = GlobalPaymentsGateway(client)
        creds = GatewayCredentials(fake.app_key, sandbox=True, fields={"appId": fake.app_id})
        bearer = gateway._access_token(creds, "https://apis.sandbox.globalpay.com/ucp", fresh=True)
        answer = client.post(
            "https://apis.sandbox.globalpay.com/ucp/transactions",
            json=body,
            headers={"Authorization": f"Bearer {bearer}", "X-GP-Version": "2021-03-22"},
        )
    assert answer.status_code == 400
    assert "referense" in answer.json()["detailed_error_description"]


# --- answers after the GP-API reference's examples ------------------------------------------

TRN = "TRN_BHZ1whvNJnMvB6dPwf3znwWTsPjCn0"
_TOKEN = {
    "token": "r1SzGAx2K9z5FNiMHkrapfRh8BC8",
    "type": "Bearer",
    "app_id": "4gPqnGBkppGYvoE5UX9EWQlotTxGUDbs",
    "app_name": "payhub",
    "time_created": "2026-01-15T17:49:20.000Z",
    "seconds_to_expire": 86399,
    "email": "dev@example.com",
}


def _transaction(status: str, *, kind: str = "SALE", mode: str = "AUTO", result: str = "00") -> Any:
    validate_status(status)
    return {
        "id": TRN,
        "time_created": "2026-01-15T17:49:20.000Z",
        "type": kind,
        "status": status,
        "channel": "CNP",
        "capture_mode": mode,
        "amount": "1999",
        "currency": "USD",
        "country": "US",
        "merchant_id": "MER_c4c0df11039c48a9b63701adeaa296c3",
        "account_name": "transaction_processing",
        "reference": "ph-1",
        "payment_method": {
            "result": result,
            "message": "SUCCESS" if result == "00" else "DECLINED",
            "entry_mode": "ECOM",
            "card": {
                "brand": "VISA",
                "masked_number_last4": "XXXXXXXXXXXX5262",
                "authcode": "12345",
            },
        },
        "batch_id": "",
        "action": {
            "id": "ACT_dIiDjh6Z7Hnm2zgtSrzEgaW0EDuU3q",
            "type": "AUTHORIZE",
            "time_created": "2026-01-15T17:49:20.000Z",
            "result_code": "SUCCESS" if result == "00" else "DECLINED",
        },
    }


def _answer(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body, headers={"x-request-id": "req-1"})


def _check(request: httpx.Request) -> None:
    body = json.loads(request.content) if request.content else None
    path = request.url.raw_path.decode().split("?")[0].removeprefix("/ucp")
    validate_request(request.method, path, body)
    if path == "/accesstoken":
        assert body["secret"] == GpApiSessionInfo.generate_secret(body["nonce"], APP_KEY)


def _charge(capture: bool) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token="PMT_5e6a9a4c-3e1b-4a8f-9d0b-7b3f9b1c2d3e")
    return ChargeRequest(Money.of(Decimal("19.99"), "USD"), source, capture, "ph-1")


def _gateway(client: httpx.Client) -> GlobalPaymentsGateway:
    return GlobalPaymentsGateway(client, now=lambda: datetime(2026, 1, 15, 17, 49, tzinfo=UTC))


USD = Money.of(Decimal("19.99"), "USD")


def test_sale_and_authorization_map_from_the_reference_answers() -> None:
    with replaying(
        [
            _answer(_TOKEN),
            _answer(_transaction("CAPTURED")),
            _answer(_transaction("PREAUTHORIZED", mode="LATER")),
        ],
        _check,
    ) as (client, _):
        gateway = _gateway(client)
        sale = gateway.charge(CREDS, _charge(True))
        auth = gateway.charge(CREDS, _charge(False))
    assert (sale.reference, sale.status, sale.amount) == (TRN, GatewayStatus.CAPTURED, USD)
    assert auth.status is GatewayStatus.AUTHORIZED


def test_a_decline_maps_from_the_reference_answer() -> None:
    with (
        replaying([_answer(_TOKEN), _answer(_transaction("DECLINED", result="51"))], _check) as (
            client,
            _,
        ),
        pytest.raises(Declined) as caught,
    ):
        _gateway(client).charge(CREDS, _charge(True))
    assert caught.value.decline_code == "insufficient_funds"


def test_capture_refund_reversal_and_status_map_from_the_reference_answers() -> None:
    with replaying(
        [
            _answer(_TOKEN),
            _answer(_transaction("CAPTURED", mode="LATER")),
            _answer(_transaction("CAPTURED", kind="REFUND")),
            _answer(_transaction("REVERSED", mode="LATER")),
            _answer(_transaction("BATCHED")),
        ],
        _check,
    ) as (client, _):
        gateway = _gateway(client)
        captured = gateway.capture(CREDS, TRN, USD, "ph-2")
        refunded = gateway.refund(CREDS, TRN, USD, "ph-3")
        reversed_ = gateway.void(CREDS, TRN, "ph-4")
        status = gateway.status(CREDS, TRN)
    assert captured.status is GatewayStatus.CAPTURED
    assert refunded.status is GatewayStatus.REFUNDED
    assert reversed_.status is GatewayStatus.VOIDED
    assert status.status is GatewayStatus.CAPTURED


def test_saving_a_card_maps_the_payment_method_answer() -> None:
    method = {
        "id": "PMT_5e6a9a4c-3e1b-4a8f-9d0b-7b3f9b1c2d3e",
        "time_created": "2026-01-15T17:49:20.000Z",
        "status": "ACTIVE",
        "usage_mode": "MULTIPLE",
        "merchant_id": "MER_c4c0df11039c48a9b63701adeaa296c3",
        "card": {
            "masked_number_last4": "XXXXXXXXXXXX5262",
            "brand": "VISA",
            "expiry_month": "12",
            "expiry_year": "31",
        },
    }
    request = SaveMethodRequest(MethodType.CARD, method["id"], "cus_1", None)
    with replaying([_answer(_TOKEN), _answer(method)], _check) as (client, replay):
        saved = _gateway(client).save_payment_method(CREDS, request)
    assert replay.requests[1].url.path == f"/ucp/payment-methods/{method['id']}"
    assert (saved.method_ref, saved.last4) == (method["id"], "5262")
