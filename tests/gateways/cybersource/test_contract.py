"""CyberSource against its official SDK's endpoints and models
(``cybersource-rest-client-python``): the validator bites, and answers shaped like the REST
API reference's examples (checked against the same models) map to the right neutral result."""

from __future__ import annotations

import base64
import copy
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.cybersource.adapter import CyberSourceGateway
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
from tests.gateways.contracts import ContractViolation
from tests.gateways.contracts.replay import replaying
from tests.gateways.cybersource.contract import validate_answer, validate_request

SECRET = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
CREDS = GatewayCredentials(SECRET, sandbox=True, fields={"merchantId": "payhub", "keyId": "k-1"})
PAYMENT = {
    "clientReferenceInformation": {"code": "TC50171_3"},
    "processingInformation": {"capture": True},
    "tokenInformation": {"transientTokenJwt": "eyJraWQiOiIwOGd2In0.e30.sig"},
    "orderInformation": {"amountDetails": {"totalAmount": "102.21", "currency": "USD"}},
}


def _broken(change: str) -> dict[str, Any]:
    body = copy.deepcopy(PAYMENT)
    if change == "misspelled":
        body["orderInformation"]["amountDetails"]["totalAmout"] = "1.00"
    elif change == "type":
        body["processingInformation"]["capture"] = "true"
    elif change == "unknown top level":
        body["paymentInformations"] = {}
    elif change == "array":
        body["processingInformation"]["actionList"] = "TOKEN_CREATE"
    return body


def test_the_reference_payment_passes() -> None:
    validate_request("POST", "/pts/v2/payments", PAYMENT)


@pytest.mark.parametrize("change", ["misspelled", "type", "unknown top level", "array"])
def test_the_models_refuse(change: str) -> None:
    with pytest.raises(ContractViolation):
        validate_request("POST", "/pts/v2/payments", _broken(change))


def test_an_endpoint_the_sdk_lacks_is_refused() -> None:
    with pytest.raises(ContractViolation, match="no endpoint"):
        validate_request("GET", "/tms/v2/payment-instruments/ABC", None)
    validate_request("GET", "/tms/v2/customers/C1/payment-instruments/ABC", None)


def test_the_fake_refuses_what_the_models_refuse() -> None:
    from tests.gateways.cybersource.fake import KEY_ID, MERCHANT_ID, FakeCyberSource
    from tests.gateways.cybersource.fake import SECRET as FAKE_SECRET

    gateway = CyberSourceGateway(FakeCyberSource().client())
    creds = GatewayCredentials(
        FAKE_SECRET, sandbox=True, fields={"merchantId": MERCHANT_ID, "keyId": KEY_ID}
    )
    with pytest.raises(GatewayError) as caught:
        gateway._send(creds, "POST", "/pts/v2/payments", _broken("misspelled"))
    assert "totalAmout" in str(caught.value.gateway_message)


# --- answers after the REST API reference's examples ----------------------------------------

PAY_ID = "6461731521426399003473"
_LINKS = {"self": {"href": f"/pts/v2/payments/{PAY_ID}", "method": "GET"}}


def _answer(method: str, path: str, body: Any, status: int = 201) -> httpx.Response:
    validate_answer(method, path, body)
    return httpx.Response(status, json=body, headers={"v-c-correlation-id": "c0ffee"})


def _check(request: httpx.Request) -> None:
    body = json.loads(request.content) if request.content else None
    validate_request(request.method, request.url.path, body)


def _payment(status: str, **extra: Any) -> dict[str, Any]:
    return {
        "_links": _LINKS,
        "clientReferenceInformation": {"code": "TC50171_3"},
        "id": PAY_ID,
        "orderInformation": {"amountDetails": {"authorizedAmount": "102.21", "currency": "USD"}},
        "paymentAccountInformation": {"card": {"type": "001"}},
        "paymentInformation": {"card": {"type": "001"}},
        "processorInformation": {
            "approvalCode": "888888",
            "networkTransactionId": "123456789619999",
            "transactionId": "123456789619999",
            "responseCode": "100",
            "avs": {"code": "X", "codeRaw": "I1"},
        },
        "reconciliationId": "64617315206",
        "status": status,
        "submitTimeUtc": "2026-01-15T22:12:32Z",
        **extra,
    }


def _details(applications: list[tuple[str, str]], related: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "id": PAY_ID,
        "submitTimeUTC": "2026-01-15T22:12:32Z",
        "applicationInformation": {
            "reasonCode": "100",
            "applications": [
                {
                    "name": name,
                    "reasonCode": "100" if r == "1" else "233",
                    "rCode": r,
                    "rFlag": "SOK" if r == "1" else "DCARDREFUSED",
                }
                for name, r in applications
            ],
        },
        "orderInformation": {"amountDetails": {"totalAmount": "102.21", "currency": "USD"}},
        "_links": {
            "self": {"href": f"/tss/v2/transactions/{PAY_ID}", "method": "GET"},
            "relatedTransactions": [
                {"href": f"/tss/v2/transactions/{other}", "method": "GET"} for other in related
            ],
        },
    }


def _charge(capture: bool) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token="eyJraWQiOiIwOGd2In0.e30.sig")
    return ChargeRequest(Money.of(Decimal("102.21"), "USD"), source, capture, "idem-1")


USD = Money.of(Decimal("102.21"), "USD")
TX = f"/tss/v2/transactions/{PAY_ID}"


@pytest.mark.parametrize(
    ("capture", "expected"), [(True, GatewayStatus.CAPTURED), (False, GatewayStatus.AUTHORIZED)]
)
def test_an_authorized_payment_maps_from_the_reference_answer(
    capture: bool, expected: GatewayStatus
) -> None:
    with replaying([_answer("POST", "/pts/v2/payments", _payment("AUTHORIZED"))], _check) as (
        client,
        _,
    ):
        result = CyberSourceGateway(client).charge(CREDS, _charge(capture))
    assert (result.reference, result.status) == (PAY_ID, expected)


def test_a_decline_maps_from_the_reference_answer() -> None:
    declined = _payment(
        "DECLINED",
        errorInformation={
            "reason": "INSUFFICIENT_FUND",
            "message": "Decline - Insufficient funds in the account.",
        },
    )
    with (
        replaying([_answer("POST", "/pts/v2/payments", declined)], _check) as (client, _),
        pytest.raises(Declined) as caught,
    ):
        CyberSourceGateway(client).charge(CREDS, _charge(True))
    assert caught.value.decline_code == "insufficient_funds"


def test_capture_refund_void_and_status_map_from_the_reference_answers() -> None:
    capture = {
        "_links": _LINKS,
        "clientReferenceInformation": {"code": "idem-2"},
        "id": "6461735221426399003474",
        "orderInformation": {"amountDetails": {"totalAmount": "102.21", "currency": "USD"}},
        "reconciliationId": "64617352214",
        "status": "PENDING",
        "submitTimeUtc": "2026-01-15T22:13:00Z",
    }
    refund = {
        "_links": _LINKS,
        "clientReferenceInformation": {"code": "idem-3"},
        "id": "6461736221426399003475",
        "refundAmountDetails": {"currency": "USD", "refundAmount": "102.21"},
        "reconciliationId": "64617362214",
        "status": "PENDING",
        "submitTimeUtc": "2026-01-15T22:14:00Z",
    }
    reversal = {
        "_links": _LINKS,
        "clientReferenceInformation": {"code": "idem-4"},
        "id": "6461737221426399003476",
        "reversalAmountDetails": {"currency": "USD", "reversedAmount": "102.21"},
        "processorInformation": {"responseCode": "100"},
        "status": "REVERSED",
        "submitTimeUtc": "2026-01-15T22:15:00Z",
    }
    with replaying(
        [
            _answer("POST", f"/pts/v2/payments/{PAY_ID}/captures", capture),
            _answer("GET", TX, _details([("ics_auth", "1"), ("ics_bill", "1")]), 200),
            _answer("POST", f"/pts/v2/payments/{PAY_ID}/refunds", refund),
            _answer("GET", TX, _details([("ics_auth", "1")]), 200),
            _answer("POST", f"/pts/v2/payments/{PAY_ID}/reversals", reversal),
            _answer("GET", TX, _details([("ics_auth", "1")]), 200),
        ],
        _check,
    ) as (client, _):
        gateway = CyberSourceGateway(client)
        captured = gateway.capture(CREDS, PAY_ID, USD, "idem-2")
        refunded = gateway.refund(CREDS, PAY_ID, USD, "idem-3")
        voided = gateway.void(CREDS, PAY_ID, "idem-4")
        status = gateway.status(CREDS, PAY_ID)
    assert captured.status is GatewayStatus.CAPTURED
    assert (refunded.reference, refunded.status) == (
        "6461736221426399003475",
        GatewayStatus.REFUNDED,
    )
    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, USD)
    assert (status.status, status.amount) == (GatewayStatus.AUTHORIZED, USD)


def test_status_of_a_declined_authorization_maps_from_the_reference_answer() -> None:
    with replaying([_answer("GET", TX, _details([("ics_auth", "0")]), 200)], _check) as (
        client,
        _,
    ):
        status = CyberSourceGateway(client).status(CREDS, PAY_ID)
    assert status.status is GatewayStatus.DECLINED


def test_saving_a_card_reads_the_instrument_under_its_customer() -> None:
    tokens = _payment(
        "AUTHORIZED",
        tokenInformation={
            "customer": {"id": "F45FB3E443AC3C57E053A2598D0A9CFF"},
            "paymentInstrument": {"id": "F45FD9E6DD2FDB3CE053A2598D0A5565"},
        },
    )
    instrument = {
        "id": "F45FD9E6DD2FDB3CE053A2598D0A5565",
        "state": "ACTIVE",
        "card": {"expirationMonth": "12", "expirationYear": "2031", "type": "001"},
        "_embedded": {
            "instrumentIdentifier": {
                "id": "7010000000016241111",
                "card": {"number": "411111XXXXXX1111"},
            }
        },
    }
    path = (
        "/tms/v2/customers/F45FB3E443AC3C57E053A2598D0A9CFF/payment-instruments/"
        "F45FD9E6DD2FDB3CE053A2598D0A5565"
    )
    request = SaveMethodRequest(MethodType.CARD, "eyJraWQiOiIwOGd2In0.e30.sig", "cus_1", None)
    with replaying(
        [_answer("POST", "/pts/v2/payments", tokens), _answer("GET", path, instrument, 200)],
        _check,
    ) as (client, replay):
        saved = CyberSourceGateway(client).save_payment_method(CREDS, request)
    assert replay.requests[1].url.path == path
    assert (saved.last4, saved.exp_month, saved.exp_year) == ("1111", 12, 2031)
