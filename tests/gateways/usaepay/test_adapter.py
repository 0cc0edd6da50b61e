"""The USAePay adapter against the in-memory fake of USAePay's REST API v2 (``fake.py``),
plus one charge through payhub's HTTP API with the adapter wired to the fake."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.usaepay.adapter import (
    ORDERID_MAX,
    UsaEpayGateway,
    api_hash,
    decline_code,
    order_id_for,
)
from payhub.adapters.system import FixedClock
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
from tests.conftest import Account
from tests.gateways.support import hub_on, usd
from tests.gateways.usaepay.fake import API_KEY, LIVE_HOST, PIN, SANDBOX_HOST, FakeUsaEpay

CREDS = GatewayCredentials(api_secret=API_KEY, sandbox=True, fields={"pin": PIN})


@pytest.fixture
def fake() -> FakeUsaEpay:
    return FakeUsaEpay()


@pytest.fixture
def usaepay(fake: FakeUsaEpay) -> UsaEpayGateway:
    return UsaEpayGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))


def token(value: str = "pk_visa") -> PaymentSource:
    return PaymentSource(method_type=MethodType.CARD, token=value)


def saved(ref: str, customer: str | None) -> PaymentSource:
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
        description="Order 42",
    )


def save(value: str = "pk_visa", customer: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=value,
        customer_id="cus_abc",
        gateway_customer_ref=customer,
        email="ada@example.com",
        name="Ada Lovelace",
    )


# --- authentication and hosts ----------------------------------------------------------------


def test_every_request_carries_a_fresh_api_hash(usaepay: UsaEpayGateway, fake: FakeUsaEpay) -> None:
    sale = usaepay.charge(CREDS, charge())
    usaepay.status(CREDS, sale.reference)

    assert len(fake.seeds) == 2
    assert fake.seeds[0] != fake.seeds[1]
    assert api_hash("key", "1234", "abcdefghijklmnop") == (
        "s2/abcdefghijklmnop/" + hashlib.sha256(b"keyabcdefghijklmnop1234").hexdigest()
    )
    assert {url.host for _, url, _ in fake.requests} == {SANDBOX_HOST}
    for _, url, body in fake.requests:
        assert PIN not in str(url)
        assert PIN not in str(body or "")


def test_the_documented_example_hash_decodes_the_same_way() -> None:
    # USAePay's own example: apikey _V87Qtb513Cd3vabM7RC0TbtJWeSo8p7, seed abcdefghijklmnop,
    # pin 123456 gives this Basic header (https://help.usaepay.info/api/rest/#authentication).
    header = (
        "X1Y4N1F0YjUxM0NkM3ZhYk03UkMwVGJ0SldlU284cDc6czIvYWJjZGVmZ2hpamtsbW5vcC9iNzRjMmZhOTFm"
        "YjBhMDk3NTVlMzc3ZWU4ZTIwYWE4NmQyYjkyYzNkMmYyNzcyODBkYjU5NWY2MzZiYjE5MGU2"
    )
    user, _, password = base64.b64decode(header).decode().partition(":")

    assert user == "_V87Qtb513Cd3vabM7RC0TbtJWeSo8p7"
    assert password.startswith("s2/abcdefghijklmnop/")
    assert len(password.split("/")[2]) == 64  # a sha256 hex digest


def test_live_credentials_use_the_live_host() -> None:
    fake = FakeUsaEpay(sandbox=False)
    gateway = UsaEpayGateway(httpx.Client(transport=httpx.MockTransport(fake.handler)))
    live = GatewayCredentials(api_secret=API_KEY, sandbox=False, fields={"pin": PIN})

    sale = gateway.charge(live, charge())
    gateway.status(live, sale.reference)

    assert {url.host for _, url, _ in fake.requests} == {LIVE_HOST}
    assert all(url.path.startswith("/api/v2/") for _, url, _ in fake.requests)


def test_a_sandbox_account_on_the_live_host_is_rejected(usaepay: UsaEpayGateway) -> None:
    live = GatewayCredentials(api_secret=API_KEY, sandbox=False, fields={"pin": PIN})

    with pytest.raises(GatewayCredentialsRejected):
        usaepay.charge(live, charge())


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials(api_secret="wrong-api-key-value", sandbox=True, fields={"pin": PIN}),
        GatewayCredentials(api_secret=API_KEY, sandbox=True, fields={"pin": "9999"}),
    ],
)
def test_a_wrong_key_or_pin_is_rejected_credentials(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as caught:
        usaepay.charge(creds, charge())

    assert caught.value.gateway_message == "Specified source key not found."
    assert fake.transactions == {}


def test_credentials_without_a_pin_never_reach_usaepay(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    with pytest.raises(GatewayCredentialsRejected, match="pin"):
        usaepay.charge(GatewayCredentials(api_secret=API_KEY, sandbox=True), charge())

    assert fake.requests == []


# --- charges, captures, refunds, voids, status ---------------------------------------------


def test_a_sale_posts_the_payment_key_and_is_captured(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    result = usaepay.charge(CREDS, charge())

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert result.reference in fake.transactions
    assert result.support["result_code"] == "A"
    [sent] = fake.posts()
    assert sent == {
        "command": "cc:sale",
        "payment_key": "pk_visa",
        "amount": "10.05",
        "orderid": "idem_charge_1",
        "description": "Order 42",
    }
    assert usaepay.status(CREDS, result.reference).status is GatewayStatus.CAPTURED


def test_authorize_then_capture_in_full(usaepay: UsaEpayGateway, fake: FakeUsaEpay) -> None:
    auth = usaepay.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.posts()[0]["command"] == "cc:authonly"
    assert usaepay.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = usaepay.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_1")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    assert fake.posts()[-1] == {"command": "cc:capture", "trankey": auth.reference,
                                "amount": "10.05"}  # fmt: skip
    after = usaepay.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("10.05"))


def test_a_partial_capture_captures_only_that_amount(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    auth = usaepay.charge(CREDS, charge(amount=usd("20.00"), capture=False))

    captured = usaepay.capture(CREDS, auth.reference, usd("12.50"), "idem_capture_2")

    assert captured.amount == usd("12.50")
    after = usaepay.status(CREDS, auth.reference)
    assert (after.status, after.amount) == (GatewayStatus.CAPTURED, usd("12.50"))


def test_capturing_a_voided_authorization_is_refused(usaepay: UsaEpayGateway) -> None:
    auth = usaepay.charge(CREDS, charge(capture=False))
    usaepay.void(CREDS, auth.reference, "idem_void_0")

    with pytest.raises(GatewayError) as caught:
        usaepay.capture(CREDS, auth.reference, usd("10.05"), "idem_capture_3")

    assert caught.value.gateway_message == "Transaction already voided."


def test_refunds_before_settlement_reverse_part_then_void_the_rest(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    sale = usaepay.charge(CREDS, charge(amount=usd("30.00")))

    part = usaepay.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_1")

    assert (part.status, part.amount) == (GatewayStatus.REFUNDED, usd("10.00"))
    assert fake.posts()[-1] == {"command": "creditvoid", "trankey": sale.reference,
                                "amount": "10.00"}  # fmt: skip
    assert usaepay.status(CREDS, sale.reference).amount == usd("20.00")

    usaepay.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_2")

    assert usaepay.status(CREDS, sale.reference).status is GatewayStatus.VOIDED


def test_refunds_after_settlement_are_credits_of_their_own(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    sale = usaepay.charge(CREDS, charge(amount=usd("30.00")))
    fake.settle()

    first = usaepay.refund(CREDS, sale.reference, usd("10.00"), "idem_refund_3")

    assert first.reference != sale.reference
    refund_status = usaepay.status(CREDS, first.reference)
    assert (refund_status.status, refund_status.amount) == (GatewayStatus.REFUNDED, usd("10.00"))
    usaepay.refund(CREDS, sale.reference, usd("20.00"), "idem_refund_4")
    with pytest.raises(GatewayError) as caught:
        usaepay.refund(CREDS, sale.reference, usd("0.01"), "idem_refund_5")
    assert "exceeds" in (caught.value.gateway_message or "")


def test_a_void_releases_the_authorization(usaepay: UsaEpayGateway, fake: FakeUsaEpay) -> None:
    auth = usaepay.charge(CREDS, charge(capture=False))

    voided = usaepay.void(CREDS, auth.reference, "idem_void_1")

    assert (voided.status, voided.reference, voided.amount) == (
        GatewayStatus.VOIDED,
        auth.reference,
        usd("10.05"),
    )
    assert fake.posts()[-1] == {"command": "cc:void:release", "trankey": auth.reference}
    assert usaepay.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    again = usaepay.void(CREDS, auth.reference, "idem_void_1")  # a retry: answered, not sent
    assert again.status is GatewayStatus.VOIDED
    assert len(fake.posts()) == 2


def test_status_of_an_unknown_transaction_is_an_error(usaepay: UsaEpayGateway) -> None:
    with pytest.raises(GatewayError) as caught:
        usaepay.status(CREDS, "nosuchkey")

    assert caught.value.gateway_message == "Transaction not found"


def test_status_reports_a_declined_charge(usaepay: UsaEpayGateway, fake: FakeUsaEpay) -> None:
    with pytest.raises(Declined):
        usaepay.charge(CREDS, charge(token("pk_decline")))
    [txn] = fake.transactions.values()

    assert usaepay.status(CREDS, txn.key).status is GatewayStatus.DECLINED


# --- vault ---------------------------------------------------------------------------------


def test_saving_creates_the_customer_stores_the_card_and_shows_safe_details(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    method = usaepay.save_payment_method(CREDS, save())

    assert method.gateway_customer_ref in fake.customers
    assert method.method_ref in fake.methods
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        "visa",
        "2224",
        9,
        2030,
    )
    tokenized, created = fake.posts()[0], fake.posts("/customers")[0]
    assert tokenized == {"command": "cc:save", "payment_key": "pk_visa"}
    assert created == {
        "customerid": "cus_abc",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "email": "ada@example.com",
    }
    [stored] = fake.posts(f"/customers/{method.gateway_customer_ref}/payment_methods")[0]
    assert stored["pay_type"] == "cc"
    assert stored["number"] in fake.cardrefs


def test_a_saved_card_is_sold_with_customer_sale(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    method = usaepay.save_payment_method(CREDS, save())

    result = usaepay.charge(
        CREDS, charge(saved(method.method_ref, method.gateway_customer_ref), key="idem_saved")
    )

    assert result.status is GatewayStatus.CAPTURED
    sent = fake.posts()[-1]
    assert (sent["command"], sent["custkey"], sent["paymethod_key"]) == (
        "customer:sale",
        method.gateway_customer_ref,
        method.method_ref,
    )


def test_a_saved_card_is_authorized_through_its_card_reference(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    method = usaepay.save_payment_method(CREDS, save("pk_mastercard"))

    auth = usaepay.charge(
        CREDS, charge(saved(method.method_ref, method.gateway_customer_ref), capture=False)
    )

    assert auth.status is GatewayStatus.AUTHORIZED
    sent = fake.posts()[-1]
    assert sent["command"] == "cc:authonly"
    assert fake.cardrefs[sent["creditcard"]["number"]].number.endswith("1111")
    assert "cardref" in [url.path.rsplit("/", 1)[-1] for _, url, _ in fake.requests]


def test_saving_for_an_existing_customer_keeps_it(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    first = usaepay.save_payment_method(CREDS, save())

    second = usaepay.save_payment_method(
        CREDS, save("pk_mastercard", customer=first.gateway_customer_ref)
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref
    assert (second.brand, second.last4) == ("mastercard", "1111")
    assert len(fake.customers) == 1


def test_saving_an_unknown_payment_key_is_an_invalid_method(usaepay: UsaEpayGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        usaepay.save_payment_method(CREDS, save("pk_nobody_issued"))


def test_a_removed_saved_method_is_an_invalid_method(usaepay: UsaEpayGateway) -> None:
    method = usaepay.save_payment_method(CREDS, save())

    with pytest.raises(PaymentMethodInvalid):
        usaepay.charge(CREDS, charge(saved("99nosuchmethod", method.gateway_customer_ref)))
    with pytest.raises(PaymentMethodInvalid):
        usaepay.charge(
            CREDS, charge(saved("99nosuchmethod", method.gateway_customer_ref), capture=False)
        )


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("test_key", "code", "message"),
    [
        ("pk_decline", "generic_decline", "Card Declined (00)"),
        ("pk_insufficient", "insufficient_funds", "Insufficient funds (51)"),
        ("pk_cvv", "incorrect_cvc", "CVV2 Mismatch (N7)"),
        ("pk_stolen", "fraudulent", "Stolen card, pick up (43)"),
        ("pk_expired", "expired_card", "Credit card has expired."),
    ],
)
def test_declines_carry_a_normalised_code_and_usaepays_message(
    usaepay: UsaEpayGateway, test_key: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        usaepay.charge(CREDS, charge(token(test_key)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway == "usaepay"


def test_decline_codes_from_messages() -> None:
    assert decline_code("Expired Card (54)") == "expired_card"
    assert decline_code("Lost card, pick up (41)") == "fraudulent"
    assert decline_code("Do Not Honor (05)") == "generic_decline"
    assert decline_code("", "17") == "expired_card"


def test_a_partial_approval_is_released_and_declined(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    with pytest.raises(Declined) as caught:
        usaepay.charge(CREDS, charge(token("pk_partial"), amount=usd("20.00")))

    assert caught.value.decline_code == "insufficient_funds"
    [txn] = fake.transactions.values()
    assert fake.posts()[-1] == {"command": "cc:void:release", "trankey": txn.key}
    assert txn.trantype == "V"


def test_a_processor_outage_is_gateway_unavailable(usaepay: UsaEpayGateway) -> None:
    with pytest.raises(GatewayUnavailable):
        usaepay.charge(CREDS, charge(token("pk_processor_down")))


def test_an_unknown_payment_key_is_an_invalid_payment_method(usaepay: UsaEpayGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        usaepay.charge(CREDS, charge(token("pk_nobody_issued")))

    assert caught.value.gateway_message == "Invalid payment key"


def test_a_spent_payment_key_for_another_charge_is_invalid(usaepay: UsaEpayGateway) -> None:
    usaepay.charge(CREDS, charge(key="idem_first"))

    with pytest.raises(PaymentMethodInvalid):
        usaepay.charge(CREDS, charge(amount=usd("11.00"), key="idem_second"))


def test_the_rate_limit_is_gateway_unavailable(usaepay: UsaEpayGateway, fake: FakeUsaEpay) -> None:
    fake.fail_next(429)

    with pytest.raises(GatewayUnavailable, match="rate limit"):
        usaepay.charge(CREDS, charge())


# --- idempotency: duplicate folding and lookup by orderid -----------------------------------


def test_a_retry_inside_the_folding_window_gets_the_original(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    request = charge(key="idem_retry")

    first = usaepay.charge(CREDS, request)
    again = usaepay.charge(CREDS, request)

    assert again.reference == first.reference
    assert again.support["is_duplicate"] == "Y"
    assert len(fake.charges()) == 1


def test_a_retry_after_the_window_finds_the_charge_by_orderid(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    request = charge(key="idem_late_retry", capture=False)
    first = usaepay.charge(CREDS, request)
    fake.advance(3600)  # folding is over: USAePay now says the payment key is spent

    again = usaepay.charge(CREDS, request)

    assert (again.reference, again.status) == (first.reference, GatewayStatus.AUTHORIZED)
    assert len(fake.charges()) == 1


def test_lookup_finds_a_charge_whose_answer_was_lost(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    request = charge(key="idem_lost")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        usaepay.charge(CREDS, request)

    found = usaepay.lookup(CREDS, request)

    assert found is not None
    [txn] = fake.transactions.values()
    assert (found.reference, found.status, found.amount) == (
        txn.key,
        GatewayStatus.CAPTURED,
        usd("10.05"),
    )
    assert usaepay.lookup(CREDS, charge(key="idem_never_sent")) is None


def test_lookup_pages_through_the_newest_transactions(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    method = usaepay.save_payment_method(CREDS, save())
    source = saved(method.method_ref, method.gateway_customer_ref)
    target = usaepay.charge(CREDS, charge(source, key="idem_old"))
    for n in range(150):
        usaepay.charge(CREDS, charge(source, amount=usd(f"{n + 1}.00"), key=f"idem_{n}"))

    found = usaepay.lookup(CREDS, charge(source, key="idem_old"))

    assert found is not None
    assert found.reference == target.reference
    offsets = [url.params.get("offset") for m, url, _ in fake.requests if m == "GET"]
    assert offsets == ["0", "100"]


def test_a_retry_usaepay_cannot_be_asked_about_stays_unknown(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    request = charge(key="idem_unknown")
    usaepay.charge(CREDS, request)
    fake.advance(3600)
    fake.timeout_next(path="/transactions")  # the POST: spent key; then the lookup GET
    with pytest.raises(GatewayTimeout):
        usaepay.charge(CREDS, request)


def test_a_long_idempotency_key_becomes_a_stable_64_character_orderid() -> None:
    key = "k" * 100

    assert order_id_for(key) == order_id_for(key)
    assert len(order_id_for(key)) == ORDERID_MAX == 64
    assert order_id_for(key) != order_id_for(key + "x")
    assert order_id_for("pay_2bqkq5x4wq") == "pay_2bqkq5x4wq"


# --- amounts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "wire", "currency"),
    [
        (Money.of("10.05", "USD"), "10.05", None),
        (Money.of("1000", "JPY"), "1000", "392"),
        (Money.of("12.34", "EUR"), "12.34", "978"),
        (Money.from_minor_units(100000, "USD"), "1000.00", None),
    ],
)
def test_amounts_are_exact_decimals_with_numeric_currency_codes(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay, amount: Money, wire: str, currency: str | None
) -> None:
    result = usaepay.charge(CREDS, charge(amount=amount))

    sent = fake.posts()[0]
    assert sent["amount"] == wire
    assert sent.get("currency") == currency
    reported = usaepay.status(CREDS, result.reference).amount
    assert reported == amount
    assert isinstance(reported.amount, Decimal)


def test_a_currency_payhub_cannot_name_to_usaepay_is_never_sent(
    usaepay: UsaEpayGateway, fake: FakeUsaEpay
) -> None:
    with pytest.raises(GatewayError, match="BRL"):
        usaepay.charge(CREDS, charge(amount=Money.of("5.00", "BRL")))
    assert fake.requests == []


# --- secrets ---------------------------------------------------------------------------------


def test_no_secret_or_token_reaches_an_error_or_a_result(usaepay: UsaEpayGateway) -> None:
    failures: list[GatewayError] = []
    wrong = GatewayCredentials(api_secret="wrong-secret-value", sandbox=True, fields={"pin": PIN})
    for request, creds in [
        (charge(token("pk_decline")), CREDS),
        (charge(token("pk_secret_looking_token")), CREDS),
        (charge(), wrong),
    ]:
        with pytest.raises(GatewayError) as caught:
            usaepay.charge(creds, request)
        failures.append(caught.value)
    result = usaepay.charge(CREDS, charge(token("pk_mastercard")))

    for failure in failures:
        text = f"{failure} {failure.gateway_message} {failure.gateway_request_id}"
        for secret in (API_KEY, PIN, "wrong-secret-value", "pk_secret_looking_token"):
            assert secret not in text
    shown = f"{result} {result.support}"
    assert API_KEY not in shown
    assert "pk_mastercard" not in shown


def test_a_secret_echoed_by_usaepay_is_blanked_from_the_gateway_message() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        sent = httpx.Response(200, content=request.content).json()
        text = f"Invalid payment key {sent['payment_key']} for {request.headers['authorization']}"
        user = base64.b64decode(request.headers["authorization"][6:]).decode().split(":")[0]
        return httpx.Response(
            200, json={"result_code": "E", "error": f"{text} {user}", "error_code": "0"}
        )

    gateway = UsaEpayGateway(httpx.Client(transport=httpx.MockTransport(echo)))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(CREDS, save("pk/echoed+back=="))

    message = caught.value.gateway_message or ""
    assert "pk/echoed+back==" not in message
    assert API_KEY not in message
    assert "[redacted]" in message


# --- through payhub's HTTP API -------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeUsaEpay) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"usaepay": UsaEpayGateway})


def test_a_charge_over_http_reaches_usaepay_and_is_recorded(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeUsaEpay,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-u")
    put = client.put(
        "/api/merchant-accounts/shop-u/credentials/usaepay",
        json={
            "apiSecret": API_KEY,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"pin": PIN},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {
        **sandbox_provider.headers,
        "X-Merchant-Reference": "shop-u",
        "Idempotency-Key": "order-u-1",
    }
    body = {
        "amount": {"value": "25.05", "currency": "USD"},
        "gatewayName": "usaepay",
        "paymentMethodToken": "pk_visa",
    }

    response = client.post("/api/payments/charge", json=body, headers=headers)

    assert response.status_code == 201, response.text
    answer = response.json()
    assert answer["status"] == "Captured"
    [txn] = fake.charges()
    assert answer["gatewayReference"] == txn.key
    assert txn.amount == Decimal("25.05")
    with hub.store.unit_of_work() as uow:
        merchant = next(m for p in uow.providers.list() for m in uow.merchants.list(p.id))
        stored = uow.transactions.get(merchant.id, answer["transactionId"])
    assert stored is not None
    assert (stored.status, stored.gateway, stored.gateway_reference) == (
        TxStatus.CAPTURED,
        "usaepay",
        txn.key,
    )
    assert stored.amount == usd("25.05")
    declined = client.post(
        "/api/payments/charge",
        json=body | {"paymentMethodToken": "pk_insufficient"},
        headers=headers | {"Idempotency-Key": "order-u-2"},
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
    assert PIN not in declined.text
    assert API_KEY not in declined.text
