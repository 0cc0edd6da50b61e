"""The Worldpay (cnpAPI) adapter against the in-memory fake of its online API."""

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
from payhub.adapters.gateways.worldpay.adapter import (
    LIVE_URL,
    SANDBOX_URL,
    Reference,
    WorldpayGateway,
    cnp_id,
    credit_id,
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
from tests.gateways.support import hub_on, usd
from tests.gateways.worldpay.fake import (
    LIVE_HOST,
    MERCHANT_ID,
    NS,
    PASSWORD,
    SANDBOX_HOST,
    USER,
    FakeWorldpay,
)

CREDS = GatewayCredentials(
    api_secret=PASSWORD, sandbox=True, fields={"user": USER, "merchantId": MERCHANT_ID}
)


@pytest.fixture
def fake() -> FakeWorldpay:
    return FakeWorldpay()


@pytest.fixture
def worldpay(fake: FakeWorldpay) -> WorldpayGateway:
    return WorldpayGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def token(value: str = "pp_visa") -> PaymentSource:
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
    )


def save(value: str = "pp_visa", customer: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=value,
        customer_id="cus_ada",
        gateway_customer_ref=customer,
        idempotency_key="idem_save_1",
    )


def text(element: ET.Element, name: str) -> str | None:
    found = element.find(f"{{{NS}}}{name}")
    return None if found is None else found.text


# --- charges, captures, refunds, voids, status ---------------------------------------------


def test_a_sale_sends_the_eprotect_id_in_a_cnp_envelope(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    result = worldpay.charge(CREDS, charge())

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    ref = Reference.parse(result.reference)
    assert (ref.action, ref.minor_units, ref.request_id) == ("S", 1005, "idem_charge_1")
    assert ref.txn_id in fake.transactions
    assert result.support["response"] == "000"
    [root] = fake.requests
    assert root.tag == f"{{{NS}}}cnpOnlineRequest"
    assert root.get("merchantId") == MERCHANT_ID
    assert root.get("version")
    assert text(root.find(f"{{{NS}}}authentication"), "user") == USER  # type: ignore[arg-type]
    [sale] = fake.sent("sale")
    assert (sale.get("id"), text(sale, "orderId"), text(sale, "amount")) == (
        "idem_charge_1",
        "idem_charge_1",
        "1005",
    )
    assert text(sale, "orderSource") == "ecommerce"
    paypage = sale.find(f"{{{NS}}}paypage")
    assert paypage is not None
    assert text(paypage, "paypageRegistrationId") == "pp_visa"


def test_authorize_then_capture_in_full(worldpay: WorldpayGateway, fake: FakeWorldpay) -> None:
    auth = worldpay.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.sent("authorization")
    assert worldpay.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = worldpay.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_1")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    [sent] = fake.sent("capture")
    assert text(sent, "cnpTxnId") == Reference.parse(auth.reference).txn_id
    assert text(sent, "amount") == "1005"
    assert sent.get("partial") is None  # one final capture: the rest is not held open
    after = worldpay.status(CREDS, auth.reference)
    assert after.status is GatewayStatus.CAPTURED


def test_a_partial_capture_captures_only_that_amount(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    auth = worldpay.charge(CREDS, charge(amount=usd("20.00"), capture=False))

    captured = worldpay.capture(CREDS, auth.reference, usd("12.50"), "idem_capture_2")

    assert captured.amount == usd("12.50")
    [authorization] = fake.of_kind("authorization")
    assert authorization.captured == 1250


def test_capturing_more_than_authorized_is_refused_by_worldpay(worldpay: WorldpayGateway) -> None:
    auth = worldpay.charge(CREDS, charge(capture=False))

    with pytest.raises(GatewayError) as caught:
        worldpay.capture(CREDS, auth.reference, usd("10.06"), "idem_capture_3")

    assert "835" in str(caught.value)
    assert caught.value.gateway_message == "Capture amount can not be more than authorized amount"


def test_a_sale_is_refunded_in_parts_then_refused_past_what_is_left(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    sale = worldpay.charge(CREDS, charge(amount=usd("30.00")))

    first = worldpay.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_1")
    second = worldpay.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_2")

    assert first.status is second.status is GatewayStatus.REFUNDED
    assert first.reference != second.reference
    assert {c.refers_to for c in fake.of_kind("credit")} == {Reference.parse(sale.reference).txn_id}
    assert [text(c, "amount") for c in fake.sent("credit")] == ["1000", "2000"]
    with pytest.raises(GatewayError) as caught:
        worldpay.refund(CREDS, sale.reference, usd("0.01"), "idem_refund_3")
    assert caught.value.gateway_message == "Total credit amount exceeds capture amount"


def test_a_captured_authorization_is_refunded_against_its_capture(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    auth = worldpay.charge(CREDS, charge(amount=usd("20.00"), capture=False))
    worldpay.capture(CREDS, auth.reference, usd("15.00"), "idem_capture_4")

    refund = worldpay.refund(CREDS, auth.reference, usd("15.00"), "idem_refund_4")

    assert refund.status is GatewayStatus.REFUNDED
    [capture] = fake.of_kind("capture")
    assert text(fake.sent("credit")[0], "cnpTxnId") == capture.id
    # the capture to credit, then the charge's earlier credits (none) to number this one
    assert [text(q, "origActionType") for q in fake.sent("queryTransaction")] == ["D", "R"]
    assert worldpay.status(CREDS, auth.reference).status is GatewayStatus.REFUNDED


def test_a_void_reverses_the_authorization(worldpay: WorldpayGateway, fake: FakeWorldpay) -> None:
    auth = worldpay.charge(CREDS, charge(capture=False))

    voided = worldpay.void(CREDS, auth.reference, "idem_void_1")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("10.05"))
    [reversal] = fake.sent("authReversal")
    assert text(reversal, "cnpTxnId") == Reference.parse(auth.reference).txn_id
    with pytest.raises(GatewayError) as caught:
        worldpay.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_5")
    assert caught.value.gateway_message == "Authorization no longer available"


def test_status_of_a_voided_authorization_is_voided(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    auth = worldpay.charge(CREDS, charge(capture=False))
    worldpay.void(CREDS, auth.reference, "idem_void_2")

    status = worldpay.status(CREDS, auth.reference)

    assert (status.status, status.amount) == (GatewayStatus.VOIDED, usd("10.05"))
    # the reversal carries the authorization's id: that is how queryTransaction finds it
    [reversal] = fake.sent("authReversal")
    assert reversal.get("id") == Reference.parse(auth.reference).request_id
    assert [text(q, "origActionType") for q in fake.sent("queryTransaction")] == ["A", "AR"]


def test_a_retried_void_is_a_worldpay_duplicate_not_a_second_reversal(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    auth = worldpay.charge(CREDS, charge(capture=False))

    first = worldpay.void(CREDS, auth.reference, "idem_void_3")
    again = worldpay.void(CREDS, auth.reference, "idem_void_4")

    assert first.status is again.status is GatewayStatus.VOIDED
    assert again.support.get("duplicate") == "true"
    assert len(fake.of_kind("authReversal")) == 1


def test_status_of_a_refunded_sale_is_refunded_and_counts_its_credits(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    sale = worldpay.charge(CREDS, charge(amount=usd("30.00")))
    assert worldpay.status(CREDS, sale.reference).status is GatewayStatus.CAPTURED

    worldpay.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_5")
    worldpay.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_6")
    status = worldpay.status(CREDS, sale.reference)

    assert status.status is GatewayStatus.REFUNDED
    assert status.support["credits"] == "2"
    ids = [c.get("id") for c in fake.sent("credit")]
    ref = Reference.parse(sale.reference)
    assert ids == [credit_id(ref, 1), credit_id(ref, 2)]
    assert all(len(i or "") <= 25 for i in ids)


def test_a_refund_racing_another_for_the_same_credit_id_takes_the_next(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    sale = worldpay.charge(CREDS, charge(amount=usd("30.00")))
    ref = Reference.parse(sale.reference)
    worldpay.refund(CREDS, sale.reference, usd("5.00"), "idem_refund_7")
    fake.hide_from_queries(credit_id(ref, 1))  # as if credit 1 were made after our lookup

    second = worldpay.refund(CREDS, sale.reference, usd("7.00"), "idem_refund_8")

    assert second.status is GatewayStatus.REFUNDED
    assert [c.get("id") for c in fake.sent("credit")] == [
        credit_id(ref, 1),
        credit_id(ref, 1),  # answered as a duplicate of the first
        credit_id(ref, 2),
    ]
    assert [c.amount for c in fake.of_kind("credit")] == [500, 700]


def test_status_of_a_declined_charge_is_declined(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    with pytest.raises(Declined):
        worldpay.charge(CREDS, charge(token("pp_insufficient"), key="idem_declined"))
    [declined] = fake.of_kind("sale")
    reference = str(Reference(declined.id, "S", 1005, "idem_declined"))

    result = worldpay.status(CREDS, reference)

    assert (result.status, result.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


def test_status_of_an_unknown_reference_is_a_gateway_error(worldpay: WorldpayGateway) -> None:
    with pytest.raises(GatewayError, match="no transaction"):
        worldpay.status(CREDS, str(Reference("82924701999999999", "S", 100, "idem_nobody")))
    with pytest.raises(GatewayError, match="reference"):
        worldpay.status(CREDS, "not-a-reference")


# --- the vault --------------------------------------------------------------------------------


def test_saving_registers_a_token_and_the_token_can_be_charged(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    method = worldpay.save_payment_method(CREDS, save())

    assert method.method_ref in fake.tokens
    assert method.gateway_customer_ref == "cus_ada"  # Worldpay has no customer object
    assert (method.brand, method.last4) == ("visa", "0009")
    [register] = fake.sent("registerTokenRequest")
    assert register.get("customerId") == "cus_ada"
    assert text(register, "paypageRegistrationId") == "pp_visa"

    result = worldpay.charge(CREDS, charge(saved(method.method_ref), key="idem_saved_1"))

    assert result.status is GatewayStatus.CAPTURED
    [sale] = fake.sent("sale")
    token_element = sale.find(f"{{{NS}}}token")
    assert token_element is not None
    assert text(token_element, "cnpToken") == method.method_ref
    assert sale.get("customerId") == "cus_ada"
    assert sale.find(f"{{{NS}}}paypage") is None


def test_saving_a_second_card_keeps_the_customer_and_a_known_card_its_token(
    worldpay: WorldpayGateway,
) -> None:
    first = worldpay.save_payment_method(CREDS, save("pp_visa"))
    second = worldpay.save_payment_method(CREDS, save("pp_mastercard", customer="cus_ada"))
    again = worldpay.save_payment_method(CREDS, save("pp_visa", customer="cus_ada"))

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert (second.brand, second.last4) == ("mastercard", "0003")
    assert again.method_ref == first.method_ref  # 802: previously registered


def test_saving_an_unknown_or_stale_eprotect_id_is_an_invalid_payment_method(
    worldpay: WorldpayGateway,
) -> None:
    for registration in ("pp_nobody_issued", "pp_stale"):
        with pytest.raises(PaymentMethodInvalid):
            worldpay.save_payment_method(CREDS, save(registration))


def test_an_unknown_token_is_an_invalid_payment_method(worldpay: WorldpayGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        worldpay.charge(CREDS, charge(saved("1112299999990009")))

    assert caught.value.gateway_message == "Token was not found"


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("registration", "code", "message"),
    [
        ("pp_decline", "generic_decline", "Do Not Honor"),
        ("pp_insufficient", "insufficient_funds", "Insufficient Funds"),
        ("pp_expired", "expired_card", "Expired Card"),
        ("pp_cvv", "incorrect_cvc", "Decline CVV2/CID Fail"),
        ("pp_stolen", "fraudulent", "Lost/Stolen Card"),
        ("pp_issuer_down", "processing_error", "Issuer Unavailable"),
    ],
)
def test_declines_carry_a_normalised_code_and_worldpays_message(
    worldpay: WorldpayGateway, registration: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        worldpay.charge(CREDS, charge(token(registration)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway == "worldpay"


def test_decline_codes_cover_the_cnpapi_table() -> None:
    assert decline_code("127") == "insufficient_funds"
    assert decline_code("320") == "expired_card"
    assert decline_code("358") == "incorrect_cvc"
    assert decline_code("303") == "fraudulent"
    assert decline_code("350") == "generic_decline"
    assert decline_code("") == "generic_decline"


@pytest.mark.parametrize("registration", ["pp_nobody_issued", "pp_stale"])
def test_an_unknown_or_expired_eprotect_id_is_an_invalid_payment_method(
    worldpay: WorldpayGateway, registration: str
) -> None:
    with pytest.raises(PaymentMethodInvalid):
        worldpay.charge(CREDS, charge(token(registration)))


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials("wrong-password", True, {"user": USER, "merchantId": MERCHANT_ID}),
        GatewayCredentials(PASSWORD, True, {"user": "someone-else", "merchantId": MERCHANT_ID}),
        GatewayCredentials(PASSWORD, True, {"user": USER, "merchantId": "999"}),
    ],
)
def test_wrong_credentials_are_rejected(
    worldpay: WorldpayGateway, fake: FakeWorldpay, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        worldpay.charge(creds, charge())
    assert fake.transactions == {}


def test_missing_credential_fields_are_rejected_before_anything_is_sent(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    with pytest.raises(GatewayCredentialsRejected, match="user and merchantId"):
        worldpay.charge(GatewayCredentials(PASSWORD, True, {"user": USER}), charge())
    assert fake.requests == []


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_is_gateway_unavailable(
    worldpay: WorldpayGateway, fake: FakeWorldpay, status: int
) -> None:
    fake.fail_next(status)

    with pytest.raises(GatewayUnavailable):
        worldpay.charge(CREDS, charge())
    assert fake.transactions == {}


def test_a_timeout_is_gateway_timeout(worldpay: WorldpayGateway, fake: FakeWorldpay) -> None:
    fake.timeout_next()

    with pytest.raises(GatewayTimeout):
        worldpay.charge(CREDS, charge())


def test_answers_worldpay_never_gives_are_gateway_errors() -> None:
    for body in (b"<html>", b"<other/>", b"<cnpOnlineResponse response='0' message='ok'/>"):
        gateway = WorldpayGateway(
            httpx.Client(
                transport=httpx.MockTransport(lambda _, b=body: httpx.Response(200, content=b))
            )
        )
        with pytest.raises(GatewayError):
            gateway.charge(CREDS, charge())


def test_a_schema_error_is_a_gateway_error_not_a_credentials_problem() -> None:
    def schema_error(_: httpx.Request) -> httpx.Response:
        body = (
            f"<cnpOnlineResponse xmlns='{NS}' version='12.30' response='1'"
            " message='Error validating xml data against the schema on line 8'/>"
        )
        return httpx.Response(200, text=body)

    gateway = WorldpayGateway(httpx.Client(transport=httpx.MockTransport(schema_error)))

    with pytest.raises(GatewayError) as caught:
        gateway.charge(CREDS, charge())
    assert type(caught.value) is GatewayError
    assert "malformed" in str(caught.value)


def test_only_usd_is_charged(worldpay: WorldpayGateway, fake: FakeWorldpay) -> None:
    with pytest.raises(ValidationError):
        worldpay.charge(CREDS, charge(amount=Money.of("10", "EUR")))
    assert fake.requests == []


# --- idempotency -----------------------------------------------------------------------------


def test_the_adapter_finds_lost_charges() -> None:
    assert isinstance(WorldpayGateway(), FindsLostCharges)


def test_a_lost_authorization_is_found_by_lookup(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    request = charge(key="idem_lost", capture=False)
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        worldpay.charge(CREDS, request)

    found = worldpay.lookup(CREDS, request)

    assert found is not None
    [auth] = fake.of_kind("authorization")
    assert (found.status, found.amount) == (GatewayStatus.AUTHORIZED, usd("10.05"))
    assert Reference.parse(found.reference).txn_id == auth.id
    [query] = fake.sent("queryTransaction")
    assert (text(query, "origId"), text(query, "origActionType")) == ("idem_lost", "A")
    assert worldpay.lookup(CREDS, charge(key="idem_never_sent")) is None


def test_a_retried_sale_is_answered_with_the_original_by_duplicate_checking(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    first = worldpay.charge(CREDS, charge(key="idem_retry"))
    again = worldpay.charge(CREDS, charge(key="idem_retry"))

    assert again.reference == first.reference
    assert again.support["duplicate"] == "true"
    assert len(fake.of_kind("sale")) == 1


def test_a_retried_capture_captures_once(worldpay: WorldpayGateway, fake: FakeWorldpay) -> None:
    auth = worldpay.charge(CREDS, charge(capture=False))
    worldpay.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_a")

    again = worldpay.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_b")

    assert again.support["duplicate"] == "true"
    assert len(fake.of_kind("capture")) == 1


def test_a_long_idempotency_key_becomes_a_stable_25_character_id() -> None:
    key = "k" * 80

    assert cnp_id(key) == cnp_id(key)
    assert len(cnp_id(key)) == 25
    assert cnp_id(key) != cnp_id(key + "x")
    assert cnp_id("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- hosts, amounts, secrets ---------------------------------------------------------------------


def test_sandbox_and_live_hosts() -> None:
    assert f"https://{SANDBOX_HOST}/sandbox/communicator/online" == SANDBOX_URL
    assert f"https://{LIVE_HOST}/vap/communicator/online" == LIVE_URL
    fake = FakeWorldpay(sandbox=False)
    gateway = WorldpayGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))
    live = GatewayCredentials(PASSWORD, False, {"user": USER, "merchantId": MERCHANT_ID})

    assert gateway.charge(live, charge()).status is GatewayStatus.CAPTURED
    with pytest.raises(GatewayError):
        gateway.charge(CREDS, charge(key="idem_other_host"))  # sandbox host: 404


def test_no_secret_or_token_reaches_an_error_or_a_result(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    failures: list[GatewayError] = []
    wrong = GatewayCredentials(
        "wrong-secret-value", True, {"user": USER, "merchantId": MERCHANT_ID}
    )
    for request, creds in [
        (charge(token("pp_decline")), CREDS),
        (charge(token("pp_secret_looking_token")), CREDS),
        (charge(), wrong),
    ]:
        with pytest.raises(GatewayError) as caught:
            worldpay.charge(creds, request)
        failures.append(caught.value)
    result = worldpay.charge(CREDS, charge(token("pp_mastercard")))

    for failure in failures:
        shown = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (PASSWORD, "wrong-secret-value", "pp_secret_looking_token"):
            assert secret not in shown
    shown = f"{result}"
    assert PASSWORD not in shown
    assert "pp_mastercard" not in shown


def test_a_secret_echoed_by_worldpay_is_blanked() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        sent = request.content.decode()
        password = sent.split("<password>")[1].split("</password>")[0]
        registration = sent.split("<paypageRegistrationId>")[1].split("<")[0]
        body = ET.Element(f"{{{NS}}}cnpOnlineResponse", {"response": "0", "message": "ok"})
        answer = ET.SubElement(body, f"{{{NS}}}saleResponse")
        ET.SubElement(answer, f"{{{NS}}}cnpTxnId").text = "1"
        ET.SubElement(answer, f"{{{NS}}}response").text = "877"
        ET.SubElement(answer, f"{{{NS}}}message").text = f"bad {registration} for {password}"
        return httpx.Response(200, content=ET.tostring(body))

    gateway = WorldpayGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(CREDS, charge(token("pp-echoed<&>back")))
    message = caught.value.gateway_message or ""
    assert "pp-echoed<&>back" not in message
    assert PASSWORD not in message
    assert "[redacted]" in message


def test_untrusted_text_is_escaped_by_the_xml_builder(
    worldpay: WorldpayGateway, fake: FakeWorldpay
) -> None:
    with pytest.raises(PaymentMethodInvalid):
        worldpay.charge(CREDS, charge(token("</paypageRegistrationId><x>"), key="a<b>&c"))

    [sale] = fake.sent("sale")
    paypage = sale.find(f"{{{NS}}}paypage")
    assert paypage is not None
    assert text(paypage, "paypageRegistrationId") == "</paypageRegistrationId><x>"
    assert sale.get("id") == "a<b>&c"


# --- through payhub's API --------------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeWorldpay) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"worldpay": WorldpayGateway})


def test_a_charge_over_http_reaches_worldpay_and_is_recorded(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeWorldpay,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-wp")
    put = client.put(
        "/api/merchant-accounts/shop-wp/credentials/worldpay",
        json={
            "apiSecret": PASSWORD,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"user": USER, "merchantId": MERCHANT_ID},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-wp"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 42.10, "currency": "USD"},
            "gatewayName": "worldpay",
            "paymentMethodToken": "pp_visa",
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Captured"
    [sale] = fake.of_kind("sale")
    assert sale.amount == 4210
    with hub.store.unit_of_work() as uow:
        merchant = next(
            m
            for p in uow.providers.list()
            for m in uow.merchants.list(p.id)
            if m.external_reference == "shop-wp"
        )
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.amount.amount) == (TxStatus.CAPTURED, Decimal("42.10"))
    assert tx.gateway_reference is not None
    assert Reference.parse(tx.gateway_reference).txn_id == sale.id
    [root] = fake.requests
    assert root.find(f"{{{NS}}}sale") is not None
    assert PASSWORD not in response.text
    assert "pp_visa" not in response.text
