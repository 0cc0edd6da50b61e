"""The NMI adapter against the in-memory fake of NMI's classic API (``fake.py``)."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.nmi.adapter import (
    ORDERID_MAX,
    NmiGateway,
    decline_code,
    order_id_for,
)
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
)
from tests.gateways.nmi.fake import LIVE_HOST, SANDBOX_HOST, SECURITY_KEY, FakeNmi
from tests.gateways.support import usd

CREDS = GatewayCredentials(api_secret=SECURITY_KEY, sandbox=True)
TRANSACT = "/api/transact.php"
QUERY = "/api/query.php"


@pytest.fixture
def fake() -> FakeNmi:
    return FakeNmi()


@pytest.fixture
def nmi(fake: FakeNmi) -> NmiGateway:
    return NmiGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def token(value: str = "tok_visa", method: MethodType = MethodType.CARD) -> PaymentSource:
    return PaymentSource(method_type=method, token=value)


def saved(ref: str, method: MethodType = MethodType.CARD) -> PaymentSource:
    return PaymentSource(method_type=method, saved_method_ref=ref, gateway_customer_ref=ref)


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


def save(
    value: str, method: MethodType = MethodType.CARD, customer: str | None = None
) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=method,
        token=value,
        customer_id="cus_abc",
        gateway_customer_ref=customer,
        email="ada@example.com",
        name="Ada Lovelace",
    )


# --- charges, captures, refunds, voids, status ---------------------------------------------


def test_a_sale_posts_the_token_and_is_captured(nmi: NmiGateway, fake: FakeNmi) -> None:
    result = nmi.charge(CREDS, charge())

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert result.reference in fake.transactions
    assert result.support["response_code"] == "100"
    [sent] = fake.sent()
    assert sent["security_key"] == SECURITY_KEY
    assert sent["type"] == "sale"
    assert sent["payment"] == "creditcard"
    assert sent["payment_token"] == "tok_visa"
    assert sent["amount"] == "10.05"
    assert sent["currency"] == "USD"
    assert "customer_vault_id" not in sent
    assert "test_mode" not in sent  # a sandbox account is always in test mode


def test_authorize_then_capture_in_full(nmi: NmiGateway, fake: FakeNmi) -> None:
    auth = nmi.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.sent()[0]["type"] == "auth"
    assert nmi.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = nmi.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.reference == auth.reference
    sent = fake.sent()[-1]
    assert (sent["type"], sent["transactionid"], sent["amount"]) == (
        "capture",
        auth.reference,
        "10.05",
    )
    after = nmi.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("10.05"))


def test_a_partial_capture_captures_only_that_amount(nmi: NmiGateway, fake: FakeNmi) -> None:
    auth = nmi.charge(CREDS, charge(amount=usd("20.00"), capture=False))

    captured = nmi.capture(CREDS, auth.reference, usd("12.50"), "idem_capture_2")

    assert captured.amount == usd("12.50")
    assert fake.sent()[-1]["amount"] == "12.50"
    after = nmi.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("12.50"))


def test_a_second_capture_is_refused_by_nmi(nmi: NmiGateway) -> None:
    auth = nmi.charge(CREDS, charge(capture=False))
    nmi.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_3")

    with pytest.raises(GatewayError) as caught:
        nmi.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_3")

    assert "AUTH" in (caught.value.gateway_message or "")


def test_refunds_in_part_then_in_full(nmi: NmiGateway, fake: FakeNmi) -> None:
    sale = nmi.charge(CREDS, charge(amount=usd("30.00")))

    first = nmi.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_1")

    assert first.status is GatewayStatus.REFUNDED
    assert first.amount == usd("10.00")
    assert first.reference != sale.reference  # NMI makes the refund a transaction of its own
    refund_sent = fake.sent()[-1]
    assert (refund_sent["type"], refund_sent["transactionid"], refund_sent["amount"]) == (
        "refund",
        sale.reference,
        "10.00",
    )
    assert "payment" not in refund_sent  # a card transaction: NMI's default
    assert nmi.status(CREDS, sale.reference).status is GatewayStatus.CAPTURED

    nmi.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_2")

    after = nmi.status(CREDS, sale.reference)
    assert (after.status, after.amount) == (GatewayStatus.REFUNDED, usd("30.00"))
    refund_status = nmi.status(CREDS, first.reference)
    assert (refund_status.status, refund_status.amount) == (GatewayStatus.REFUNDED, usd("10.00"))


def test_refunding_more_than_is_left_is_refused(nmi: NmiGateway) -> None:
    sale = nmi.charge(CREDS, charge(amount=usd("5.00")))

    with pytest.raises(GatewayError) as caught:
        nmi.refund(CREDS, sale.reference, usd("6.00"), "idem_refund_3")

    assert "balance" in (caught.value.gateway_message or "")


def test_a_void_cancels_the_authorization(nmi: NmiGateway, fake: FakeNmi) -> None:
    auth = nmi.charge(CREDS, charge(capture=False))

    voided = nmi.void(CREDS, auth.reference, "idem_void_1")

    assert (voided.status, voided.reference, voided.amount) == (
        GatewayStatus.VOIDED,
        auth.reference,
        usd("10.05"),
    )
    sent = fake.sent()[-1]
    assert (sent["type"], sent["transactionid"]) == ("void", auth.reference)
    assert "payment" not in sent
    assert nmi.status(CREDS, auth.reference).status is GatewayStatus.VOIDED


def test_status_reports_a_settled_sale_as_captured(nmi: NmiGateway, fake: FakeNmi) -> None:
    sale = nmi.charge(CREDS, charge())
    fake.settle()

    result = nmi.status(CREDS, sale.reference)

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert result.support == {"condition": "complete"}
    assert fake.sent(QUERY)[-1] == {"security_key": SECURITY_KEY, "transaction_id": sale.reference}


def test_status_of_a_declined_charge_is_declined(nmi: NmiGateway) -> None:
    with pytest.raises(Declined) as caught:
        nmi.charge(CREDS, charge(token("tok_decline")))
    reference = caught.value.gateway_request_id
    assert reference

    assert nmi.status(CREDS, reference).status is GatewayStatus.DECLINED


def test_status_of_an_unknown_reference_is_a_gateway_error(nmi: NmiGateway) -> None:
    with pytest.raises(GatewayError, match="no transaction 999"):
        nmi.status(CREDS, "999")


# --- the vault and ACH -----------------------------------------------------------------------


def test_a_saved_card_shows_only_safe_details_and_can_be_charged(
    nmi: NmiGateway, fake: FakeNmi
) -> None:
    method = nmi.save_payment_method(CREDS, save("tok_visa"))

    assert method.method_ref in fake.vault
    assert method.gateway_customer_ref == method.method_ref  # one vault record per method
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        "visa",
        "1111",
        10,
        2030,
    )
    assert method.bank_name is None
    added = fake.sent()[0]
    assert added["customer_vault"] == "add_customer"
    assert added["payment_token"] == "tok_visa"
    assert (added["first_name"], added["last_name"]) == ("Ada", "Lovelace")

    result = nmi.charge(CREDS, charge(saved(method.method_ref)))

    assert result.status is GatewayStatus.CAPTURED
    sent = fake.sent()[-1]
    assert sent["customer_vault_id"] == method.method_ref
    assert "payment_token" not in sent


def test_saving_for_an_existing_customer_keeps_its_reference(nmi: NmiGateway) -> None:
    first = nmi.save_payment_method(CREDS, save("tok_visa"))

    second = nmi.save_payment_method(
        CREDS, save("tok_mastercard", customer=first.gateway_customer_ref)
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref
    assert (second.brand, second.last4, second.exp_month, second.exp_year) == (
        "mastercard",
        "1111",
        4,
        2031,
    )


def test_a_saved_bank_account_is_charged_as_a_check(nmi: NmiGateway, fake: FakeNmi) -> None:
    method = nmi.save_payment_method(CREDS, save("tok_check", MethodType.BANK_ACCOUNT))

    assert method.method_type is MethodType.BANK_ACCOUNT
    assert (method.last4, method.brand, method.exp_month, method.bank_name) == (
        "6789",
        None,
        None,
        None,
    )

    result = nmi.charge(CREDS, charge(saved(method.method_ref, MethodType.BANK_ACCOUNT)))

    assert result.status is GatewayStatus.SUBMITTED
    sent = fake.sent()[-1]
    assert (sent["payment"], sent["sec_code"], sent["customer_vault_id"]) == (
        "check",
        "WEB",
        method.method_ref,
    )


def test_an_ach_sale_is_submitted_settles_and_refunds_as_a_check(
    nmi: NmiGateway, fake: FakeNmi
) -> None:
    sale = nmi.charge(CREDS, charge(token("tok_check", MethodType.BANK_ACCOUNT)))

    assert sale.status is GatewayStatus.SUBMITTED
    sent = fake.sent()[0]
    assert (sent["type"], sent["payment"], sent["sec_code"]) == ("sale", "check", "WEB")
    assert not any(k.startswith("check") for k in sent)  # no account numbers, only the token
    assert nmi.status(CREDS, sale.reference).status is GatewayStatus.SUBMITTED

    fake.settle()
    assert nmi.status(CREDS, sale.reference).status is GatewayStatus.CAPTURED

    refund = nmi.refund(CREDS, sale.reference, usd("10.05"), "idem_refund_ach")

    assert refund.status is GatewayStatus.REFUNDED
    assert fake.sent()[-1]["payment"] == "check"


def test_an_ach_sale_can_be_voided_before_settlement(nmi: NmiGateway, fake: FakeNmi) -> None:
    sale = nmi.charge(CREDS, charge(token("tok_check", MethodType.BANK_ACCOUNT)))

    assert nmi.void(CREDS, sale.reference, "idem_void_ach").status is GatewayStatus.VOIDED
    assert fake.sent()[-1]["payment"] == "check"


def test_a_bank_account_cannot_be_only_authorized(nmi: NmiGateway, fake: FakeNmi) -> None:
    with pytest.raises(ValueError, match="ACH"):
        nmi.charge(CREDS, charge(token("tok_check", MethodType.BANK_ACCOUNT), capture=False))

    assert fake.requests == []


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("test_token", "code", "message"),
    [
        ("tok_decline", "generic_decline", "DECLINE"),
        ("tok_do_not_honor", "generic_decline", "Do Not Honor"),
        ("tok_insufficient", "insufficient_funds", "Insufficient funds"),
        ("tok_expired", "expired_card", "Expired card"),
        ("tok_cvv", "incorrect_cvc", "Invalid card security code"),
        ("tok_stolen", "fraudulent", "Stolen card"),
        ("tok_processor_error", "processing_error", "Transaction error returned by processor"),
    ],
)
def test_declines_carry_a_normalised_code_and_nmis_message(
    nmi: NmiGateway, test_token: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        nmi.charge(CREDS, charge(token(test_token)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway == "nmi"


def test_decline_codes_cover_nmis_table() -> None:
    assert decline_code("203") == "insufficient_funds"
    assert decline_code("224") == "expired_card"
    assert decline_code("250") == "fraudulent"
    assert decline_code("461") == "processing_error"
    assert decline_code("264") == "generic_decline"
    assert decline_code("") == "generic_decline"


def test_an_amount_under_one_dollar_declines_in_test_mode(nmi: NmiGateway) -> None:
    with pytest.raises(Declined) as caught:
        nmi.charge(CREDS, charge(amount=usd("0.50")))

    assert caught.value.decline_code == "generic_decline"


def test_an_unknown_token_is_an_invalid_payment_method(nmi: NmiGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        nmi.charge(CREDS, charge(token("tok_nobody_issued")))

    assert caught.value.gateway_message == "Invalid Payment Token REFID:4"


def test_a_spent_token_is_an_invalid_payment_method(nmi: NmiGateway) -> None:
    nmi.charge(CREDS, charge(amount=usd("10.05"), key="idem_first"))

    with pytest.raises(PaymentMethodInvalid):
        nmi.charge(CREDS, charge(amount=usd("11.00"), key="idem_second"))


def test_an_unknown_vault_record_is_an_invalid_payment_method(nmi: NmiGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        nmi.charge(CREDS, charge(saved("2199999999")))


def test_saving_an_unknown_token_is_an_invalid_payment_method(nmi: NmiGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        nmi.save_payment_method(CREDS, save("tok_nobody_issued"))


def test_a_wrong_security_key_is_rejected_credentials(nmi: NmiGateway, fake: FakeNmi) -> None:
    wrong = GatewayCredentials(api_secret="not-the-key", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected) as caught:
        nmi.charge(wrong, charge())
    assert caught.value.gateway_message == "Authentication Failed"

    with pytest.raises(GatewayCredentialsRejected):
        nmi.status(wrong, "10000000002")  # the Query API says so in <error_response>
    assert fake.transactions == {}


def test_a_sandbox_account_on_the_live_host_is_rejected_credentials(nmi: NmiGateway) -> None:
    live = GatewayCredentials(api_secret=SECURITY_KEY, sandbox=False)

    with pytest.raises(GatewayCredentialsRejected):
        nmi.charge(live, charge())


def test_a_charge_whose_answer_was_lost_is_found_by_lookup(nmi: NmiGateway, fake: FakeNmi) -> None:
    request = charge(key="idem_lost")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        nmi.charge(CREDS, request)

    found = nmi.lookup(CREDS, request)

    assert found is not None
    [txn] = fake.transactions.values()
    assert (found.reference, found.status, found.amount) == (
        txn.id,
        GatewayStatus.CAPTURED,
        usd("10.05"),
    )
    assert fake.sent(QUERY)[-1]["order_id"] == "idem_lost"
    assert nmi.lookup(CREDS, charge(key="idem_never_sent")) is None


# --- idempotency -----------------------------------------------------------------------------


def test_the_idempotency_key_travels_as_orderid_with_a_duplicate_window(
    nmi: NmiGateway, fake: FakeNmi
) -> None:
    nmi.charge(CREDS, charge(key="idem_wire"))

    sent = fake.sent()[0]
    assert sent["orderid"] == "idem_wire"
    assert sent["dup_seconds"] == "1200"


def test_a_retried_charge_returns_the_original_instead_of_charging_twice(
    nmi: NmiGateway, fake: FakeNmi
) -> None:
    method = nmi.save_payment_method(CREDS, save("tok_visa"))
    request = charge(saved(method.method_ref), key="idem_retry")

    first = nmi.charge(CREDS, request)
    again = nmi.charge(CREDS, request)

    assert again.reference == first.reference
    assert again.status is GatewayStatus.CAPTURED
    assert len(fake.transactions) == 1
    assert fake.sent()[-1]["orderid"] == "idem_retry"  # NMI refused it as a duplicate


def test_a_retry_with_the_spent_token_returns_the_original(nmi: NmiGateway, fake: FakeNmi) -> None:
    request = charge(key="idem_token_retry", capture=False)

    first = nmi.charge(CREDS, request)
    fake.advance(3600)  # past the window: NMI now says the token is spent
    again = nmi.charge(CREDS, request)

    assert (again.reference, again.status) == (first.reference, GatewayStatus.AUTHORIZED)
    assert len(fake.transactions) == 1


def test_a_retry_nmi_cannot_be_asked_about_stays_unknown(nmi: NmiGateway, fake: FakeNmi) -> None:
    method = nmi.save_payment_method(CREDS, save("tok_visa"))
    request = charge(saved(method.method_ref), key="idem_unknown")
    nmi.charge(CREDS, request)
    fake.timeout_next(path=QUERY)

    with pytest.raises(GatewayTimeout):
        nmi.charge(CREDS, request)


def test_a_retry_the_query_api_refuses_keeps_nmis_refusal(nmi: NmiGateway, fake: FakeNmi) -> None:
    method = nmi.save_payment_method(CREDS, save("tok_visa"))
    request = charge(saved(method.method_ref), key="idem_refused")
    nmi.charge(CREDS, request)
    fake.fail_next(404, path=QUERY)

    with pytest.raises(Declined) as caught:
        nmi.charge(CREDS, request)

    assert (caught.value.gateway_message or "").startswith("Duplicate transaction")


def test_a_different_charge_inside_the_window_is_refused_as_a_duplicate(
    nmi: NmiGateway, fake: FakeNmi
) -> None:
    method = nmi.save_payment_method(CREDS, save("tok_visa"))
    nmi.charge(CREDS, charge(saved(method.method_ref), key="idem_a"))

    with pytest.raises(Declined) as caught:
        nmi.charge(CREDS, charge(saved(method.method_ref), key="idem_b"))
    assert caught.value.decline_code == "generic_decline"
    assert (caught.value.gateway_message or "").startswith("Duplicate transaction")

    fake.advance(1200)
    assert nmi.charge(CREDS, charge(saved(method.method_ref), key="idem_c")).reference


def test_a_long_idempotency_key_becomes_a_stable_36_character_orderid() -> None:
    key = "k" * 80

    assert order_id_for(key) == order_id_for(key)
    assert len(order_id_for(key)) == ORDERID_MAX == 36
    assert order_id_for(key) != order_id_for(key + "x")
    assert order_id_for("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- hosts and amounts -----------------------------------------------------------------------


def test_sandbox_credentials_use_the_sandbox_host(nmi: NmiGateway, fake: FakeNmi) -> None:
    sale = nmi.charge(CREDS, charge())
    nmi.status(CREDS, sale.reference)

    assert {url.host for url, _ in fake.requests} == {SANDBOX_HOST}
    assert {url.path for url, _ in fake.requests} == {TRANSACT, QUERY}
    assert all(url.scheme == "https" for url, _ in fake.requests)


def test_live_credentials_use_the_live_host() -> None:
    fake = FakeNmi(sandbox=False)
    nmi = NmiGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))
    live = GatewayCredentials(api_secret=SECURITY_KEY, sandbox=False)

    sale = nmi.charge(live, charge())
    nmi.status(live, sale.reference)

    assert {url.host for url, _ in fake.requests} == {LIVE_HOST}


@pytest.mark.parametrize(
    ("amount", "wire", "minor"),
    [
        (Money.of("10.05", "USD"), "10.05", 1005),
        (Money.of("1000", "JPY"), "1000", 1000),
        (Money.of("12.345", "KWD"), "12.345", 12345),
        (Money.from_minor_units(100000, "USD"), "1000.00", 100000),
    ],
)
def test_amounts_are_exact_decimals_on_the_wire_and_back(
    nmi: NmiGateway, fake: FakeNmi, amount: Money, wire: str, minor: int
) -> None:
    result = nmi.charge(CREDS, charge(amount=amount))

    assert fake.sent()[0]["amount"] == wire
    assert fake.sent()[0]["currency"] == amount.currency
    assert result.amount.minor_units == minor
    reported = nmi.status(CREDS, result.reference).amount
    assert reported == amount
    assert isinstance(reported.amount, Decimal)


# --- secrets ---------------------------------------------------------------------------------


def test_no_secret_or_token_reaches_an_error_or_a_result(nmi: NmiGateway, fake: FakeNmi) -> None:
    failures: list[GatewayError] = []
    for request, creds in [
        (charge(token("tok_decline")), CREDS),
        (charge(token("tok_secret_looking_token")), CREDS),
        (charge(), GatewayCredentials(api_secret="wrong-secret-value", sandbox=True)),
    ]:
        with pytest.raises(GatewayError) as caught:
            nmi.charge(creds, request)
        failures.append(caught.value)
    result = nmi.charge(CREDS, charge(token("tok_mastercard")))

    for failure in failures:
        text = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (SECURITY_KEY, "wrong-secret-value", "tok_secret_looking_token"):
            assert secret not in text
    shown = f"{result}"
    assert SECURITY_KEY not in shown
    assert "tok_mastercard" not in shown


def test_a_secret_echoed_by_nmi_is_blanked_from_the_gateway_message() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        form = dict(httpx.QueryParams(request.content.decode()))
        text = f"Invalid Payment Token {form['payment_token']} for key {form['security_key']}"
        return httpx.Response(
            200, text=str(httpx.QueryParams({"response": "3", "responsetext": text}))
        )

    gateway = NmiGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(CREDS, save("tok/echoed+back=="))

    message = caught.value.gateway_message or ""
    assert "tok/echoed+back==" not in message
    assert SECURITY_KEY not in message
    assert "[redacted]" in message
