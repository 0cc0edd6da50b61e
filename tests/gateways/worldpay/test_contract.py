"""Worldpay (cnpAPI) against the schema compiled into Worldpay's own Python SDK
(``vantivecommercesdk``): the validator bites, and answers shaped like the cnpAPI
reference's examples (checked against the same schema) map to the right neutral result."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.worldpay.adapter import WorldpayGateway
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
from tests.gateways.worldpay.contract import validate

CREDS = GatewayCredentials("certpass", sandbox=True, fields={"user": "u", "merchantId": "1234567"})
SALE = """<?xml version="1.0" encoding="utf-8"?>
<cnpOnlineRequest xmlns="http://www.vantivcnp.com/schema" version="12.30" merchantId="1234567">
<authentication><user>u</user><password>p</password></authentication>
<sale id="ph-1" reportGroup="payhub"><orderId>ph-1</orderId><amount>1005</amount>
<orderSource>ecommerce</orderSource>
<paypage><paypageRegistrationId>cDZJcmd1VjNlYXNaSlRMTGpocVZQY1NWVXE4Z</paypageRegistrationId></paypage>
</sale></cnpOnlineRequest>"""


def test_the_reference_sale_passes() -> None:
    validate(SALE)


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        (SALE.replace("orderId>", "orderID>"), "misspelled element"),
        (
            SALE.replace(
                "<orderId>ph-1</orderId><amount>1005</amount>",
                "<amount>1005</amount><orderId>ph-1</orderId>",
            ),
            "elements out of schema order",
        ),
        (SALE.replace('reportGroup="payhub"', 'reportGroup="payhub" colour="red"'), "attribute"),
        (SALE.replace("<sale ", "<sales ").replace("</sale>", "</sales>"), "unknown transaction"),
        (SALE.replace("http://www.vantivcnp.com/schema", "http://www.litle.com/schema"), "ns"),
        (
            SALE.replace("<paypage>", "<card><type>VI</type></card><paypage>"),
            "two payment methods",
        ),
    ],
)
def test_the_schema_refuses(broken: str, why: str) -> None:
    with pytest.raises(ContractViolation):
        validate(broken)


def test_the_fake_refuses_what_the_schema_refuses() -> None:
    from tests.gateways.worldpay.fake import FakeWorldpay

    fake = FakeWorldpay()
    answer = fake.handler(
        httpx.Request(
            "POST",
            "https://www.testvantivcnp.com/sandbox/communicator/online",
            content=SALE.replace("orderId>", "orderID>").encode(),
            headers={"Content-Type": "text/xml; charset=UTF-8"},
        )
    )
    assert 'response="1"' in answer.text
    assert "orderID" in answer.text


# --- answers after the cnpAPI reference's examples ------------------------------------------

_NS = 'xmlns="http://www.vantivcnp.com/schema"'


def _answer(inner: str) -> httpx.Response:
    text = (
        f'<cnpOnlineResponse version="12.30" {_NS} response="0" message="Valid Format">'
        f"{inner}</cnpOnlineResponse>"
    )
    validate(text)
    return httpx.Response(200, text=text, headers={"Content-Type": "text/xml"})


def _txn(kind: str, txn_id: str, code: str = "000", message: str = "Approved") -> str:
    order = "<orderId>ph-1</orderId>" if kind in ("sale", "authorization") else ""
    auth = (
        "<authCode>123457</authCode>" if kind in ("sale", "authorization") and code == "000" else ""
    )
    return (
        f'<{kind}Response id="ph-1" reportGroup="payhub">'
        f"<cnpTxnId>{txn_id}</cnpTxnId>{order}<response>{code}</response>"
        f"<responseTime>2026-01-15T17:49:20</responseTime><message>{message}</message>"
        f"{auth}</{kind}Response>"
    )


def _check(request: httpx.Request) -> None:
    validate(request.content)


def _charge(capture: bool) -> ChargeRequest:
    source = PaymentSource(MethodType.CARD, token="cDZJcmd1VjNlYXNaSlRMTGpocVZQY1NWVXE4Z")
    return ChargeRequest(Money.of(Decimal("10.05"), "USD"), source, capture, "ph-1")


USD = Money.of(Decimal("10.05"), "USD")


def test_a_sale_and_an_authorization_map_from_the_reference_answers() -> None:
    with replaying(
        [
            _answer(_txn("sale", "82924701437133501")),
            _answer(_txn("authorization", "82924701437133502")),
        ],
        _check,
    ) as (client, _):
        gateway = WorldpayGateway(client)
        sale = gateway.charge(CREDS, _charge(True))
        auth = gateway.charge(CREDS, _charge(False))
    assert sale.status is GatewayStatus.CAPTURED
    assert sale.reference.startswith("82924701437133501;S;1005;")
    assert auth.status is GatewayStatus.AUTHORIZED


def test_a_decline_maps_from_the_reference_answer() -> None:
    declined = _txn("sale", "82924701437133503", "110", "Insufficient Funds")
    with (
        replaying([_answer(declined)], _check) as (client, _),
        pytest.raises(Declined) as caught,
    ):
        WorldpayGateway(client).charge(CREDS, _charge(True))
    assert caught.value.decline_code == "insufficient_funds"


def test_capture_refund_void_and_status_map_from_the_reference_answers() -> None:
    auth_ref = "82924701437133502;A;1005;ph-1"
    sale_ref = "82924701437133501;S;1005;ph-1"

    def found(kind: str, txn_id: str) -> str:
        return _answer(
            '<queryTransactionResponse id="q" reportGroup="payhub">'
            "<response>150</response><responseTime>2026-01-15T17:49:20</responseTime>"
            "<message>Original transaction found</message><matchCount>1</matchCount>"
            f"<results_max10>{_txn(kind, txn_id)}</results_max10>"
            "</queryTransactionResponse>"
        )

    not_found = _answer(
        '<queryTransactionResponse id="q" reportGroup="payhub">'
        "<response>151</response><responseTime>2026-01-15T17:49:20</responseTime>"
        "<message>Original transaction not found</message>"
        "</queryTransactionResponse>"
    )
    with replaying(
        [
            _answer(_txn("capture", "82924701437133504")),
            not_found,  # the sale's earlier credits: none
            _answer(_txn("credit", "82924701437133505")),
            _answer(_txn("authReversal", "82924701437133506")),
            found("sale", "82924701437133501"),
            found("credit", "82924701437133505"),  # its first credit
            not_found,  # no second one
            found("authorization", "82924701437133502"),
            found("authReversal", "82924701437133506"),
        ],
        _check,
    ) as (client, _):
        gateway = WorldpayGateway(client)
        captured = gateway.capture(CREDS, auth_ref, USD, "ph-2")
        refunded = gateway.refund(CREDS, sale_ref, USD, "ph-3")
        voided = gateway.void(CREDS, auth_ref, "ph-4")
        sale_status = gateway.status(CREDS, sale_ref)
        auth_status = gateway.status(CREDS, auth_ref)
    assert captured.status is GatewayStatus.CAPTURED
    assert (refunded.reference, refunded.status) == ("82924701437133505", GatewayStatus.REFUNDED)
    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, USD)
    assert (sale_status.status, sale_status.amount) == (GatewayStatus.REFUNDED, USD)
    assert (auth_status.status, auth_status.amount) == (GatewayStatus.VOIDED, USD)


def test_registering_a_token_maps_from_the_reference_answer() -> None:
    registered = (
        '<registerTokenResponse id="ph-5" reportGroup="payhub" customerId="cus_1">'
        "<cnpTxnId>82924701437133507</cnpTxnId><cnpToken>1111222233334444</cnpToken>"
        "<response>801</response><message>Account number was successfully registered</message>"
        "<responseTime>2026-01-15T17:49:20</responseTime><type>VI</type>"
        "</registerTokenResponse>"
    )
    request = SaveMethodRequest(
        MethodType.CARD, "cDZJcmd1VjNlYXNaSlRMTGpocVZQY1NWVXE4Z", "cus_1", None
    )
    with replaying([_answer(registered)], _check) as (client, _):
        saved = WorldpayGateway(client).save_payment_method(CREDS, request)
    assert (saved.method_ref, saved.brand, saved.last4) == ("1111222233334444", "visa", "4444")
