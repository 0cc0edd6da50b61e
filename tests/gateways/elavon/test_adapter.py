"""The Elavon Converge adapter against the in-memory fake of its XML API."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from xml.etree import ElementTree as ET

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.elavon.adapter import (
    DEMO_URL,
    LIVE_URL,
    ElavonGateway,
    decline_code,
    merchant_txn_id,
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
from payhub.ports import FindsLostCharges
from tests.conftest import Account
from tests.gateways.elavon.fake import (
    DEMO_HOST,
    DEMO_PATH,
    LIVE_HOST,
    LIVE_PATH,
    MERCHANT_ID,
    PIN,
    USER_ID,
    FakeElavon,
)
from tests.gateways.support import hub_on, usd

FIELDS = {"merchantId": MERCHANT_ID, "userId": USER_ID}
CREDS = GatewayCredentials(api_secret=PIN, sandbox=True, fields=FIELDS)


@pytest.fixture
def fake() -> FakeElavon:
    return FakeElavon()


@pytest.fixture
def elavon(fake: FakeElavon) -> ElavonGateway:
    return ElavonGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def token(value: str = "ck_visa") -> PaymentSource:
    return PaymentSource(method_type=MethodType.CARD, token=value)


def saved(ref: str, customer: str = "cus_ada") -> PaymentSource:
    return PaymentSource(
        method_type=MethodType.CARD, saved_method_ref=ref, gateway_customer_ref=customer
    )


def charge(
    source: PaymentSource | None = None,
    amount: Money | None = None,
    capture: bool = True,
    key: str = "idem_charge_1",
) -> ChargeRequest:
    return ChargeRequest(
        amount=amount or usd("10.05"),
        source=source or token(),
        capture=capture,
        idempotency_key=key,
        description="Order <42> & co",
    )


def save(value: str = "ck_visa", customer: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=value,
        customer_id="cus_ada",
        gateway_customer_ref=customer,
        idempotency_key="idem_save_1",
    )


def field(txn: ET.Element, name: str) -> str | None:
    found = txn.find(name)
    return None if found is None else found.text


# --- charges, captures, refunds, voids, status ---------------------------------------------


def test_a_sale_posts_xmldata_with_the_token(elavon: ElavonGateway, fake: FakeElavon) -> None:
    result = elavon.charge(CREDS, charge())

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    [sale] = fake.of_kind("SALE")
    assert result.reference == sale.id
    assert sale.amount == Decimal("10.05")
    assert result.support["ssl_approval_code"] == "094012"
    [sent] = fake.sent("CCSALE")
    assert field(sent, "ssl_merchant_id") == MERCHANT_ID
    assert field(sent, "ssl_user_id") == USER_ID
    assert field(sent, "ssl_amount") == "10.05"
    assert field(sent, "ssl_token") == "ck_visa"
    assert field(sent, "ssl_merchant_txn_id") == "idem_charge_1"
    assert field(sent, "ssl_invoice_number") == "idem_charge_1"
    assert field(sent, "ssl_description") == "Order <42> & co"


def test_authorize_then_complete_in_full(elavon: ElavonGateway, fake: FakeElavon) -> None:
    auth = elavon.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.sent("CCAUTHONLY")
    assert elavon.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = elavon.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_1")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    [sent] = fake.sent("CCCOMPLETE")
    assert (field(sent, "ssl_txn_id"), field(sent, "ssl_amount")) == (auth.reference, "10.05")
    assert elavon.status(CREDS, auth.reference).status is GatewayStatus.CAPTURED


def test_a_partial_completion_captures_only_that_amount(
    elavon: ElavonGateway, fake: FakeElavon
) -> None:
    auth = elavon.charge(CREDS, charge(amount=usd("20.00"), capture=False))

    captured = elavon.capture(CREDS, auth.reference, usd("12.50"), "idem_capture_2")

    assert captured.amount == usd("12.50")
    assert fake.transactions[auth.reference].completed == Decimal("12.50")


def test_completing_more_than_authorized_is_refused(elavon: ElavonGateway) -> None:
    auth = elavon.charge(CREDS, charge(capture=False))

    with pytest.raises(GatewayError) as caught:
        elavon.capture(CREDS, auth.reference, usd("10.06"), "idem_capture_3")

    assert type(caught.value) is GatewayError
    assert "5091" in str(caught.value)


def test_a_sale_is_refunded_in_parts_then_refused_past_what_is_left(
    elavon: ElavonGateway, fake: FakeElavon
) -> None:
    sale = elavon.charge(CREDS, charge(amount=usd("30.00")))

    first = elavon.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_1")
    second = elavon.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_2")

    assert first.status is second.status is GatewayStatus.REFUNDED
    assert first.reference != second.reference
    assert {r.original for r in fake.of_kind("RETURN")} == {sale.reference}
    assert [field(r, "ssl_amount") for r in fake.sent("CCRETURN")] == ["10.00", "20.00"]
    with pytest.raises(GatewayError) as caught:
        elavon.refund(CREDS, sale.reference, usd("0.01"), "idem_refund_3")
    assert "exceeded" in (caught.value.gateway_message or "")


def test_a_completed_authorization_is_refunded_up_to_the_captured_amount(
    elavon: ElavonGateway,
) -> None:
    auth = elavon.charge(CREDS, charge(amount=usd("20.00"), capture=False))
    elavon.capture(CREDS, auth.reference, usd("15.00"), "idem_capture_4")

    refund = elavon.refund(CREDS, auth.reference, usd("15.00"), "idem_refund_4")

    assert refund.status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError):
        elavon.refund(CREDS, auth.reference, usd("0.01"), "idem_refund_5")


def test_a_void_deletes_the_authorization(elavon: ElavonGateway, fake: FakeElavon) -> None:
    auth = elavon.charge(CREDS, charge(capture=False))

    voided = elavon.void(CREDS, auth.reference, "idem_void_1")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("10.05"))
    [sent] = fake.sent("CCDELETE")
    assert field(sent, "ssl_txn_id") == auth.reference
    assert elavon.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="5040"):
        elavon.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_5")


def test_status_of_a_declined_charge_is_declined(elavon: ElavonGateway, fake: FakeElavon) -> None:
    with pytest.raises(Declined):
        elavon.charge(CREDS, charge(token("ck_insufficient"), key="idem_declined"))
    [declined] = fake.of_kind("SALE")

    result = elavon.status(CREDS, declined.id)

    assert (result.status, result.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


def test_status_of_an_unknown_reference_is_a_gateway_error(elavon: ElavonGateway) -> None:
    with pytest.raises(GatewayError, match="no transaction"):
        elavon.status(CREDS, "000000AD3-NOPE")


# --- the vault --------------------------------------------------------------------------------


def test_saving_stores_the_card_in_card_manager_and_it_can_be_charged(
    elavon: ElavonGateway, fake: FakeElavon
) -> None:
    method = elavon.save_payment_method(CREDS, save())

    assert method.method_ref in fake.card_manager
    assert fake.card_manager[method.method_ref][1] == "cus_ada"
    assert method.gateway_customer_ref == "cus_ada"
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        "visa",
        "4444",
        12,
        2030,
    )
    [sent] = fake.sent("CCGETTOKEN")
    assert (field(sent, "ssl_add_token"), field(sent, "ssl_token")) == ("Y", "ck_visa")

    first = elavon.charge(CREDS, charge(saved(method.method_ref), key="idem_saved_1"))
    again = elavon.charge(CREDS, charge(saved(method.method_ref), key="idem_saved_2"))

    assert first.status is again.status is GatewayStatus.CAPTURED
    assert field(fake.sent("CCSALE")[0], "ssl_token") == method.method_ref
    assert field(fake.sent("CCSALE")[0], "ssl_customer_code") == "cus_ada"


def test_saving_a_second_card_keeps_the_customer(elavon: ElavonGateway) -> None:
    first = elavon.save_payment_method(CREDS, save("ck_visa"))
    second = elavon.save_payment_method(CREDS, save("ck_mastercard", customer="cus_ada"))

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert (second.brand, second.last4) == ("mastercard", "5555")
    assert second.method_ref != first.method_ref


def test_saving_a_declined_or_spent_token_fails(elavon: ElavonGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        elavon.save_payment_method(CREDS, save("ck_expired"))
    elavon.save_payment_method(CREDS, save("ck_visa"))
    with pytest.raises(PaymentMethodInvalid):
        elavon.save_payment_method(CREDS, save("ck_visa"))  # Checkout.js token: spent


@pytest.mark.parametrize("value", ["ck_nobody_issued", "ck_visa"])
def test_an_unknown_or_spent_token_is_an_invalid_payment_method(
    elavon: ElavonGateway, value: str
) -> None:
    elavon.charge(CREDS, charge(key="idem_first"))  # spends ck_visa

    with pytest.raises(PaymentMethodInvalid) as caught:
        elavon.charge(CREDS, charge(token(value), key="idem_second"))

    assert caught.value.gateway == "elavon"


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        ("ck_decline", "generic_decline", "DECLINED"),
        ("ck_insufficient", "insufficient_funds", "INSUFFICIENT FUNDS"),
        ("ck_expired", "expired_card", "EXPIRED CARD"),
        ("ck_cvv", "incorrect_cvc", "DECLINED CVV2"),
        ("ck_stolen", "fraudulent", "PICK UP CARD"),
    ],
)
def test_declines_carry_a_normalised_code_and_convergess_message(
    elavon: ElavonGateway, value: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        elavon.charge(CREDS, charge(token(value)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway == "elavon"


def test_decline_codes_fall_back_to_the_message() -> None:
    assert decline_code("", "INSUFFICIENT FUNDS") == "insufficient_funds"
    assert decline_code("", "EXPIRED CARD") == "expired_card"
    assert decline_code("", "DECLINED CVV2") == "incorrect_cvc"
    assert decline_code("", "PICK UP CARD") == "fraudulent"
    assert decline_code("96", "") == "processing_error"
    assert decline_code("05", "DECLINED") == "generic_decline"


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials("wrong-pin", True, FIELDS),
        GatewayCredentials(PIN, True, {**FIELDS, "userId": "someone"}),
        GatewayCredentials(PIN, True, {**FIELDS, "merchantId": "999"}),
    ],
)
def test_wrong_credentials_are_rejected(
    elavon: ElavonGateway, fake: FakeElavon, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        elavon.charge(creds, charge())
    assert fake.transactions == {}


def test_missing_credential_fields_are_rejected_before_anything_is_sent(
    elavon: ElavonGateway, fake: FakeElavon
) -> None:
    with pytest.raises(GatewayCredentialsRejected, match="merchantId and userId"):
        elavon.charge(GatewayCredentials(PIN, True, {"merchantId": MERCHANT_ID}), charge())
    assert fake.requests == []


def test_answers_converge_never_gives_are_gateway_errors() -> None:
    for body in (b"<html>", b"<other/>"):
        gateway = ElavonGateway(
            httpx.Client(
                transport=httpx.MockTransport(lambda _, b=body: httpx.Response(200, content=b))
            )
        )
        with pytest.raises(GatewayError):
            gateway.charge(CREDS, charge())


def test_only_usd_is_charged(elavon: ElavonGateway, fake: FakeElavon) -> None:
    with pytest.raises(ValidationError):
        elavon.charge(CREDS, charge(amount=Money.of("10", "EUR")))
    assert fake.requests == []


# --- idempotency -----------------------------------------------------------------------------


def test_the_adapter_finds_lost_charges() -> None:
    assert isinstance(ElavonGateway(), FindsLostCharges)


@pytest.mark.parametrize("capture", [True, False])
def test_a_lost_charge_is_found_by_its_merchant_txn_id(
    elavon: ElavonGateway, fake: FakeElavon, capture: bool
) -> None:
    request = charge(key="idem_lost", capture=capture)
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        elavon.charge(CREDS, request)

    found = elavon.lookup(CREDS, request)

    assert found is not None
    [txn] = fake.of_kind("SALE" if capture else "AUTHONLY")
    expected = GatewayStatus.CAPTURED if capture else GatewayStatus.AUTHORIZED
    assert (found.reference, found.status, found.amount) == (txn.id, expected, usd("10.05"))
    [query] = fake.sent("TXNQUERY")
    assert field(query, "ssl_merchant_txn_id") == "idem_lost"
    assert elavon.lookup(CREDS, charge(key="idem_never_sent")) is None


def test_a_declined_charge_is_not_found_by_lookup(elavon: ElavonGateway) -> None:
    request = charge(token("ck_decline"), key="idem_declined_lookup")
    with pytest.raises(Declined):
        elavon.charge(CREDS, request)

    assert elavon.lookup(CREDS, request) is None


def test_a_long_idempotency_key_becomes_a_stable_25_character_id() -> None:
    key = "k" * 80

    assert merchant_txn_id(key) == merchant_txn_id(key)
    assert len(merchant_txn_id(key)) == 25
    assert merchant_txn_id(key) != merchant_txn_id(key + "x")
    assert merchant_txn_id("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- hosts, secrets, XML ---------------------------------------------------------------------


def test_demo_and_live_hosts() -> None:
    assert f"https://{DEMO_HOST}{DEMO_PATH}" == DEMO_URL
    assert f"https://{LIVE_HOST}{LIVE_PATH}" == LIVE_URL
    fake = FakeElavon(sandbox=False)
    gateway = ElavonGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))

    live = GatewayCredentials(PIN, False, FIELDS)
    assert gateway.charge(live, charge()).status is GatewayStatus.CAPTURED
    with pytest.raises(GatewayError):
        gateway.charge(CREDS, charge(key="idem_other_host"))  # demo host: 404


def test_no_secret_or_token_reaches_an_error_or_a_result(
    elavon: ElavonGateway, fake: FakeElavon
) -> None:
    failures: list[GatewayError] = []
    for request, creds in [
        (charge(token("ck_decline")), CREDS),
        (charge(token("ck_secret_looking_token")), CREDS),
        (charge(), GatewayCredentials("wrong-secret-value", True, FIELDS)),
    ]:
        with pytest.raises(GatewayError) as caught:
            elavon.charge(creds, request)
        failures.append(caught.value)
    result = elavon.charge(CREDS, charge(token("ck_mastercard")))

    for failure in failures:
        shown = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (PIN, "wrong-secret-value", "ck_secret_looking_token"):
            assert secret not in shown
    shown = f"{result}"
    assert PIN not in shown
    assert "ck_mastercard" not in shown


def test_a_secret_echoed_by_converge_is_blanked() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        xml = parse_qs(request.content.decode())["xmldata"][0]
        sent = ET.fromstring(xml)  # noqa: S314 - our own test traffic
        message = f"bad {sent.findtext('ssl_token')} for {sent.findtext('ssl_pin')}"
        body = ET.Element("txn")
        ET.SubElement(body, "errorCode").text = "5087"
        ET.SubElement(body, "errorName").text = "Invalid Token"
        ET.SubElement(body, "errorMessage").text = message
        return httpx.Response(200, content=ET.tostring(body))

    gateway = ElavonGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(CREDS, charge(token("ck-echoed<&>back")))
    message = caught.value.gateway_message or ""
    assert "ck-echoed<&>back" not in message
    assert PIN not in message
    assert "[redacted]" in message


def test_untrusted_text_is_escaped_by_the_xml_builder(
    elavon: ElavonGateway, fake: FakeElavon
) -> None:
    with pytest.raises(PaymentMethodInvalid):
        elavon.charge(CREDS, charge(token("</ssl_token><ssl_amount>0.01"), key="a<b>&c"))

    [sale] = fake.sent("CCSALE")
    assert field(sale, "ssl_token") == "</ssl_token><ssl_amount>0.01"
    assert field(sale, "ssl_amount") == "10.05"
    assert field(sale, "ssl_merchant_txn_id") == "a<b>&c"


# --- through payhub's API --------------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeElavon) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"elavon": ElavonGateway})


def test_a_charge_over_http_reaches_converge_and_is_recorded(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeElavon,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-ev")
    put = client.put(
        "/api/merchant-accounts/shop-ev/credentials/elavon",
        json={
            "apiSecret": PIN,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": FIELDS,
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-ev"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 42.10, "currency": "USD"},
            "gatewayName": "elavon",
            "paymentMethodToken": "ck_visa",
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Captured"
    [sale] = fake.of_kind("SALE")
    assert sale.amount == Decimal("42.10")
    assert sale.merchant_txn_id  # payhub's key went out as ssl_merchant_txn_id
    with hub.store.unit_of_work() as uow:
        merchant = next(
            m
            for p in uow.providers.list()
            for m in uow.merchants.list(p.id)
            if m.external_reference == "shop-ev"
        )
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.amount.amount) == (TxStatus.CAPTURED, Decimal("42.10"))
    assert tx.gateway_reference == sale.id
    assert PIN not in response.text
    assert "ck_visa" not in response.text
