"""The Heartland (Portico) adapter against the in-memory fake of its SOAP POS Gateway."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.heartland.adapter import (
    CERT_URL,
    LIVE_URL,
    HeartlandGateway,
    client_txn_id,
    decline_code,
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
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from payhub.ports import FindsLostCharges
from tests.conftest import Account
from tests.gateways.heartland.fake import (
    CERT_HOST,
    CERT_KEY,
    LIVE_HOST,
    NS,
    PATH,
    PROD_KEY,
    FakeHeartland,
)
from tests.gateways.support import hub_on, usd

CREDS = GatewayCredentials(api_secret=CERT_KEY, sandbox=True)


@pytest.fixture
def fake() -> FakeHeartland:
    return FakeHeartland()


@pytest.fixture
def heartland(fake: FakeHeartland) -> HeartlandGateway:
    return HeartlandGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def token(value: str = "supt_visa") -> PaymentSource:
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


def save(value: str = "supt_visa", customer: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=value,
        customer_id="cus_ada",
        gateway_customer_ref=customer,
        idempotency_key="idem_save_1",
    )


def find(element: ET.Element, path: str) -> str | None:
    found = element.find("/".join(f"{{{NS}}}{p}" for p in path.split("/")))
    return None if found is None else found.text


# --- charges, captures, refunds, voids, status ---------------------------------------------


def test_a_sale_sends_the_token_in_a_portico_envelope(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    result = heartland.charge(CREDS, charge())

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    [sale] = fake.of_service("CreditSale")
    assert result.reference == sale.id
    assert sale.amount == Decimal("10.05")
    assert result.support["RspCode"] == "00"
    [version] = fake.requests
    assert find(version, "Header/SecretAPIKey") == CERT_KEY
    assert find(version, "Header/ClientTxnId") == "idem_charge_1"
    [sent] = fake.sent("CreditSale")
    assert find(sent, "Block1/Amt") == "10.05"
    assert find(sent, "Block1/AllowDup") == "Y"
    assert find(sent, "Block1/AllowPartialAuth") == "N"
    assert find(sent, "Block1/CardData/TokenData/TokenValue") == "supt_visa"
    assert find(sent, "Block1/CardData/TokenRequest") == "N"
    assert find(sent, "Block1/AdditionalTxnFields/Description") == "Order <42> & co"
    assert find(sent, "Block1/Ecommerce") == "ECOM"


def test_authorize_then_capture_in_full(heartland: HeartlandGateway, fake: FakeHeartland) -> None:
    auth = heartland.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.sent("CreditAuth")
    assert heartland.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = heartland.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_1")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    [sent] = fake.sent("CreditAddToBatch")
    assert (find(sent, "GatewayTxnId"), find(sent, "Amt")) == (auth.reference, "10.05")
    after = heartland.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("10.05"))


def test_a_partial_capture_adds_the_lower_amount_to_the_batch(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    auth = heartland.charge(CREDS, charge(amount=usd("20.00"), capture=False))

    captured = heartland.capture(CREDS, auth.reference, usd("12.50"), "idem_capture_2")

    assert captured.amount == usd("12.50")
    assert fake.transactions[auth.reference].settled == Decimal("12.50")


def test_capturing_more_than_authorized_is_refused(heartland: HeartlandGateway) -> None:
    auth = heartland.charge(CREDS, charge(capture=False))

    with pytest.raises(GatewayError) as caught:
        heartland.capture(CREDS, auth.reference, usd("10.06"), "idem_capture_3")

    assert type(caught.value) is GatewayError
    assert "gateway code 3" in str(caught.value)


def test_a_sale_is_refunded_in_parts_then_refused_past_what_is_left(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    sale = heartland.charge(CREDS, charge(amount=usd("30.00")))

    first = heartland.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_1")
    second = heartland.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_2")

    assert first.status is second.status is GatewayStatus.REFUNDED
    assert first.reference != second.reference
    returns = fake.of_service("CreditReturn")
    assert {r.original for r in returns} == {sale.reference}
    assert [find(r, "Block1/Amt") for r in fake.sent("CreditReturn")] == ["10.00", "20.00"]
    assert [r.client_txn_id for r in returns] == ["idem_refund_1", "idem_refund_2"]
    with pytest.raises(GatewayError):
        heartland.refund(CREDS, sale.reference, usd("0.01"), "idem_refund_3")


def test_a_captured_authorization_is_refunded(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    auth = heartland.charge(CREDS, charge(amount=usd("20.00"), capture=False))
    heartland.capture(CREDS, auth.reference, usd("15.00"), "idem_capture_4")

    refund = heartland.refund(CREDS, auth.reference, usd("15.00"), "idem_refund_4")

    assert refund.status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError):
        heartland.refund(CREDS, auth.reference, usd("0.01"), "idem_refund_5")


def test_a_void_releases_the_authorization(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    auth = heartland.charge(CREDS, charge(capture=False))

    voided = heartland.void(CREDS, auth.reference, "idem_void_1")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("10.05"))
    [sent] = fake.sent("CreditVoid")
    assert find(sent, "GatewayTxnId") == auth.reference
    assert heartland.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError):
        heartland.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_5")


def test_status_of_a_declined_charge_is_declined(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    with pytest.raises(Declined):
        heartland.charge(CREDS, charge(token("supt_insufficient"), key="idem_declined"))
    [declined] = fake.of_service("CreditSale")

    result = heartland.status(CREDS, declined.id)

    assert (result.status, result.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


def test_status_of_an_unknown_reference_is_a_gateway_error(heartland: HeartlandGateway) -> None:
    with pytest.raises(GatewayError, match="code 3"):
        heartland.status(CREDS, "999999")
    with pytest.raises(GatewayError, match="reference"):
        heartland.status(CREDS, "not-a-reference")


# --- the vault --------------------------------------------------------------------------------


def test_saving_verifies_for_a_multi_use_token_that_can_be_charged(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    method = heartland.save_payment_method(CREDS, save())

    assert method.method_ref in fake.multi_use
    assert method.gateway_customer_ref == "cus_ada"  # Portico has no customer object
    assert (method.brand, method.last4) == ("visa", "4242")
    [verify] = fake.sent("CreditAccountVerify")
    assert find(verify, "Block1/CardData/TokenRequest") == "Y"
    assert find(verify, "Block1/CardData/TokenData/TokenValue") == "supt_visa"
    assert find(verify, "Block1/AdditionalTxnFields/CustomerID") == "cus_ada"

    first = heartland.charge(CREDS, charge(saved(method.method_ref), key="idem_saved_1"))
    again = heartland.charge(CREDS, charge(saved(method.method_ref), key="idem_saved_2"))

    assert first.status is again.status is GatewayStatus.CAPTURED
    sent = fake.sent("CreditSale")[0]
    assert find(sent, "Block1/CardData/TokenData/TokenValue") == method.method_ref
    assert find(sent, "Block1/AdditionalTxnFields/CustomerID") == "cus_ada"


def test_saving_a_second_card_keeps_the_customer(heartland: HeartlandGateway) -> None:
    first = heartland.save_payment_method(CREDS, save("supt_visa"))
    second = heartland.save_payment_method(CREDS, save("supt_mastercard", customer="cus_ada"))

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert (second.brand, second.last4) == ("mastercard", "5454")
    assert second.method_ref != first.method_ref


def test_saving_a_declined_card_is_declined_and_a_spent_token_invalid(
    heartland: HeartlandGateway,
) -> None:
    with pytest.raises(Declined):
        heartland.save_payment_method(CREDS, save("supt_expired"))
    heartland.save_payment_method(CREDS, save("supt_visa"))
    with pytest.raises(PaymentMethodInvalid):
        heartland.save_payment_method(CREDS, save("supt_visa"))  # single-use: spent


@pytest.mark.parametrize("value", ["supt_nobody_issued", "supt_visa"])
def test_an_unknown_or_spent_single_use_token_is_an_invalid_payment_method(
    heartland: HeartlandGateway, value: str
) -> None:
    heartland.charge(CREDS, charge(key="idem_first"))  # spends supt_visa

    with pytest.raises(PaymentMethodInvalid) as caught:
        heartland.charge(CREDS, charge(token(value), key="idem_second"))

    assert caught.value.gateway == "heartland"


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        ("supt_decline", "generic_decline", "DECLINE"),
        ("supt_insufficient", "insufficient_funds", "DECLINE"),
        ("supt_expired", "expired_card", "EXPIRED CARD"),
        ("supt_cvv", "incorrect_cvc", "CVV2 MISMATCH"),
        ("supt_stolen", "fraudulent", "HOLD-CALL"),
    ],
)
def test_declines_carry_a_normalised_code_and_the_issuers_text(
    heartland: HeartlandGateway, value: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        heartland.charge(CREDS, charge(token(value)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway == "heartland"


def test_decline_codes_cover_the_issuer_table() -> None:
    assert decline_code("61") == "insufficient_funds"
    assert decline_code("80") == "expired_card"
    assert decline_code("EB") == "incorrect_cvc"
    assert decline_code("41") == "fraudulent"
    assert decline_code("96") == "processing_error"
    assert decline_code("05") == decline_code("") == "generic_decline"


def test_an_issuer_timeout_is_reversed_and_declined(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    with pytest.raises(GatewayUnavailable, match="reversed"):
        heartland.charge(CREDS, charge(token("supt_issuer_down")))

    [sale] = fake.of_service("CreditSale")
    assert sale.status == "R"
    [reversal] = fake.sent("CreditReversal")
    assert (find(reversal, "Block1/GatewayTxnId"), find(reversal, "Block1/Amt")) == (
        sale.id,
        "10.05",
    )


def test_a_gateway_timeout_answer_is_reversed_and_left_retryable(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    request = charge(token("supt_gateway_timeout"), key="idem_gw_timeout")
    with pytest.raises(GatewayUnavailable):
        heartland.charge(CREDS, request)

    [sale] = fake.of_service("CreditSale")
    assert sale.status == "R"
    assert heartland.lookup(CREDS, request) is None  # the reversed charge is not "found"


def test_a_reversal_that_fails_leaves_the_charge_unknown(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    fake.reversals_fail = True

    with pytest.raises(GatewayTimeout):
        heartland.charge(CREDS, charge(token("supt_issuer_down")))


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials("skapi_cert_wrongKey", True),
        GatewayCredentials("", True),
    ],
)
def test_wrong_credentials_are_rejected(
    heartland: HeartlandGateway, fake: FakeHeartland, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        heartland.charge(creds, charge())
    assert fake.transactions == {}


def test_a_key_of_the_other_mode_is_rejected_before_anything_is_sent(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    with pytest.raises(GatewayCredentialsRejected, match="production"):
        heartland.charge(GatewayCredentials(PROD_KEY, True), charge())
    with pytest.raises(GatewayCredentialsRejected, match="certification"):
        heartland.charge(GatewayCredentials(CERT_KEY, False), charge())
    assert fake.requests == []


def test_answers_portico_never_gives_are_gateway_errors() -> None:
    for body in (b"<html>", b"<other/>", b"<Envelope><Body/></Envelope>"):
        gateway = HeartlandGateway(
            httpx.Client(
                transport=httpx.MockTransport(lambda _, b=body: httpx.Response(200, content=b))
            )
        )
        with pytest.raises(GatewayError):
            gateway.charge(CREDS, charge())


def test_only_usd_is_charged(heartland: HeartlandGateway, fake: FakeHeartland) -> None:
    with pytest.raises(ValidationError):
        heartland.charge(CREDS, charge(amount=Money.of("10", "EUR")))
    assert fake.requests == []


# --- idempotency -----------------------------------------------------------------------------


def test_the_adapter_finds_lost_charges() -> None:
    assert isinstance(HeartlandGateway(), FindsLostCharges)


@pytest.mark.parametrize("capture", [True, False])
def test_a_lost_charge_is_found_by_its_client_txn_id(
    heartland: HeartlandGateway, fake: FakeHeartland, capture: bool
) -> None:
    request = charge(key="idem_lost", capture=capture)
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        heartland.charge(CREDS, request)

    found = heartland.lookup(CREDS, request)

    assert found is not None
    [txn] = fake.of_service("CreditSale" if capture else "CreditAuth")
    expected = GatewayStatus.CAPTURED if capture else GatewayStatus.AUTHORIZED
    assert (found.reference, found.status, found.amount) == (txn.id, expected, usd("10.05"))
    [query] = fake.sent("FindTransactions")
    assert find(query, "Criteria/ClientTxnId") == "idem_lost"
    assert heartland.lookup(CREDS, charge(key="idem_never_sent")) is None


def test_a_declined_charge_is_not_found_by_lookup(heartland: HeartlandGateway) -> None:
    request = charge(token("supt_decline"), key="idem_declined_lookup")
    with pytest.raises(Declined):
        heartland.charge(CREDS, request)

    assert heartland.lookup(CREDS, request) is None


def test_a_long_idempotency_key_becomes_a_stable_50_character_id() -> None:
    key = "k" * 80

    assert client_txn_id(key) == client_txn_id(key)
    assert len(client_txn_id(key)) == 50
    assert client_txn_id(key) != client_txn_id(key + "x")
    assert client_txn_id("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- hosts, secrets, XML ---------------------------------------------------------------------


def test_certification_and_live_hosts() -> None:
    assert f"https://{CERT_HOST}{PATH}" == CERT_URL
    assert f"https://{LIVE_HOST}{PATH}" == LIVE_URL
    fake = FakeHeartland(key=PROD_KEY, sandbox=False)
    gateway = HeartlandGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))

    assert gateway.charge(GatewayCredentials(PROD_KEY, False), charge()).status is (
        GatewayStatus.CAPTURED
    )


def test_no_secret_or_token_reaches_an_error_or_a_result(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    failures: list[GatewayError] = []
    for request, creds in [
        (charge(token("supt_decline")), CREDS),
        (charge(token("supt_secret_looking_token")), CREDS),
        (charge(), GatewayCredentials("skapi_cert_wrong-secret-value", True)),
    ]:
        with pytest.raises(GatewayError) as caught:
            heartland.charge(creds, request)
        failures.append(caught.value)
    result = heartland.charge(CREDS, charge(token("supt_mastercard")))

    for failure in failures:
        shown = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (CERT_KEY, "wrong-secret-value", "supt_secret_looking_token"):
            assert secret not in shown
    shown = f"{result}"
    assert CERT_KEY not in shown
    assert "supt_mastercard" not in shown


def test_a_secret_echoed_by_portico_is_blanked() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        sent = ET.fromstring(request.content)  # noqa: S314 - our own test traffic
        key = sent.findtext(f".//{{{NS}}}SecretAPIKey") or ""
        value = sent.findtext(f".//{{{NS}}}TokenValue") or ""
        fake = FakeHeartland()
        response = fake.handler(request)
        text = response.content.decode().replace(
            "Invalid card data: token not found", f"bad {value} for {key}"
        )
        return httpx.Response(200, content=text.encode())

    gateway = HeartlandGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(CREDS, charge(token("supt-echoed-back")))
    message = caught.value.gateway_message or ""
    assert "supt-echoed-back" not in message
    assert CERT_KEY not in message
    assert "[redacted]" in message


def test_untrusted_text_is_escaped_by_the_xml_builder(
    heartland: HeartlandGateway, fake: FakeHeartland
) -> None:
    with pytest.raises(PaymentMethodInvalid):
        heartland.charge(CREDS, charge(token("</TokenValue><x>"), key="a<b>&c"))

    [sale] = fake.sent("CreditSale")
    assert find(sale, "Block1/CardData/TokenData/TokenValue") == "</TokenValue><x>"
    [version] = fake.requests
    assert find(version, "Header/ClientTxnId") == "a<b>&c"


# --- through payhub's API --------------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeHeartland) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"heartland": HeartlandGateway})


def test_a_charge_over_http_reaches_portico_and_is_recorded(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeHeartland,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-hl")
    put = client.put(
        "/api/merchant-accounts/shop-hl/credentials/heartland",
        json={"apiSecret": CERT_KEY, "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-hl"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 42.10, "currency": "USD"},
            "gatewayName": "heartland",
            "paymentMethodToken": "supt_visa",
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Captured"
    [sale] = fake.of_service("CreditSale")
    assert sale.amount == Decimal("42.10")
    assert sale.client_txn_id  # payhub's key went out as the ClientTxnId
    with hub.store.unit_of_work() as uow:
        merchant = next(
            m
            for p in uow.providers.list()
            for m in uow.merchants.list(p.id)
            if m.external_reference == "shop-hl"
        )
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.amount.amount) == (TxStatus.CAPTURED, Decimal("42.10"))
    assert tx.gateway_reference == sale.id
    assert CERT_KEY not in response.text
    assert "supt_visa" not in response.text
