"""The Helcim adapter against an in-memory fake of Helcim's API v2
(its fake.py beside this file)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.helcim.adapter import (
    BASE_URL,
    PAYER_IP_UNKNOWN,
    HelcimGateway,
    helcim_amount,
    helcim_key,
    invoice_number,
    normalise_decline,
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
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from payhub.ports import FindsLostCharges
from tests.conftest import Account
from tests.gateways.helcim.fake import API_TOKEN, FakeHelcim
from tests.gateways.support import hub_on, usd

CREDS = GatewayCredentials(api_secret=API_TOKEN, sandbox=True)


@pytest.fixture
def fake() -> FakeHelcim:
    return FakeHelcim()


@pytest.fixture
def gateway(fake: FakeHelcim) -> Iterator[HelcimGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield HelcimGateway(client)


def card(token: str, amount: Money, capture: bool = True, key: str = "charge-1") -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=token), capture, key)


def sent(request: httpx.Request) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(request.content)
    return body


# --- charges, captures, refunds, voids, status --------------------------------------------


def test_a_sale_posts_a_decimal_amount_an_ip_and_a_25_character_key(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    token = fake.tokenize()

    result = gateway.charge(CREDS, card(token, usd("10.05")))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert fake.transactions[int(result.reference)]["type"] == "purchase"
    [request] = fake.posts("/payment/purchase")
    assert str(request.url) == f"{BASE_URL}/payment/purchase"
    assert request.headers["api-token"] == API_TOKEN
    key = request.headers["idempotency-key"]
    assert key == helcim_key("charge-1")
    assert re.fullmatch(r"[A-Z0-9]{25}", key)
    assert b'"amount":10.05' in request.content  # a JSON number, not a string or cents
    assert sent(request) == {
        "ipAddress": PAYER_IP_UNKNOWN,
        "ecommerce": True,
        "currency": "USD",
        "amount": 10.05,
        "cardData": {"cardToken": token},
        "invoice": {"invoiceNumber": invoice_number("charge-1")},
    }
    assert result.support["helcim_status"] == "APPROVED"
    assert result.support["approval_code"] == "T5E8ST"


def test_the_description_becomes_the_invoice_notes(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    request = ChargeRequest(
        usd("3.00"),
        PaymentSource(MethodType.CARD, token=fake.tokenize()),
        True,
        "described",
        description="Invoice 42",
    )
    gateway.charge(CREDS, request)

    assert sent(fake.posts("/payment/purchase")[0])["invoice"]["notes"] == "Invoice 42"


def test_authorize_then_capture_in_full_returns_the_new_capture(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("42.00"), capture=False))
    assert (auth.status, auth.amount) == (GatewayStatus.AUTHORIZED, usd("42.00"))
    assert len(fake.posts("/payment/preauth")) == 1

    captured = gateway.capture(CREDS, auth.reference, usd("42.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("42.00"))
    assert captured.reference != auth.reference
    assert fake.transactions[int(captured.reference)]["type"] == "capture"
    request = fake.posts("/payment/capture")[0]
    assert sent(request) == {
        "preAuthTransactionId": int(auth.reference),
        "amount": 42.0,
        "ipAddress": PAYER_IP_UNKNOWN,
        "ecommerce": True,
    }
    assert request.headers["idempotency-key"] == helcim_key("capture-1")
    status = gateway.status(CREDS, auth.reference)
    assert (status.status, status.reference) == (GatewayStatus.CAPTURED, auth.reference)


def test_authorize_then_capture_part(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("10.00"), capture=False))

    captured = gateway.capture(CREDS, auth.reference, usd("6.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("6.00"))
    status = gateway.status(CREDS, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, usd("6.00"))


def test_a_second_capture_is_refused(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("10.00"), capture=False))
    gateway.capture(CREDS, auth.reference, usd("10.00"), "capture-1")

    with pytest.raises(GatewayError, match="refused") as caught:
        gateway.capture(CREDS, auth.reference, usd("10.00"), "capture-2")

    assert type(caught.value) is GatewayError
    assert "already completed" in (caught.value.gateway_message or "")


def test_refunds_of_a_sale_in_part_then_in_full(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    sale = gateway.charge(CREDS, card(fake.tokenize(), usd("30.00")))

    first = gateway.refund(CREDS, sale.reference, usd("12.50"), "refund-1")

    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("12.50"))
    assert first.support["charge"] == sale.reference
    request = fake.posts("/payment/refund")[0]
    assert sent(request) == {
        "originalTransactionId": int(sale.reference),
        "amount": 12.5,
        "ipAddress": PAYER_IP_UNKNOWN,
        "ecommerce": True,
    }
    assert request.headers["idempotency-key"] == helcim_key("refund-1")
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.CAPTURED

    gateway.refund(CREDS, sale.reference, usd("17.50"), "refund-2")
    assert gateway.status(CREDS, sale.reference).status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError, match="refused"):
        gateway.refund(CREDS, sale.reference, usd("0.01"), "refund-3")


def test_a_refund_of_an_authorization_goes_to_its_capture(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("20.00"), capture=False))
    capture = gateway.capture(CREDS, auth.reference, usd("15.00"), "capture-1")

    refund = gateway.refund(CREDS, auth.reference, usd("15.00"), "refund-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert sent(fake.posts("/payment/refund")[0])["originalTransactionId"] == int(capture.reference)
    status = gateway.status(CREDS, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.REFUNDED, usd("15.00"))


def test_refunding_an_uncaptured_authorization_is_refused_before_helcim_hears(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("20.00"), capture=False))

    with pytest.raises(GatewayError, match="no capture"):
        gateway.refund(CREDS, auth.reference, usd("5.00"), "refund-1")

    assert fake.posts("/payment/refund") == []


def test_a_void_reverses_the_authorization(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("15.00"), capture=False))

    voided = gateway.void(CREDS, auth.reference, "void-1")

    assert voided.status is GatewayStatus.VOIDED
    assert fake.transactions[int(voided.reference)]["type"] == "reverse"
    request = fake.posts("/payment/reverse")[0]
    assert sent(request) == {
        "cardTransactionId": int(auth.reference),
        "ipAddress": PAYER_IP_UNKNOWN,
        "ecommerce": True,
    }
    assert request.headers["idempotency-key"] == helcim_key("void-1")
    assert gateway.status(CREDS, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="refused"):
        gateway.capture(CREDS, auth.reference, usd("15.00"), "capture-after-void")


def test_status_of_an_authorization(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    auth = gateway.charge(CREDS, card(fake.tokenize(), usd("15.00"), capture=False))

    status = gateway.status(CREDS, auth.reference)

    assert (status.status, status.amount) == (GatewayStatus.AUTHORIZED, usd("15.00"))
    assert fake.requests[-2].url.path == f"/v2/card-transactions/{auth.reference}"
    assert fake.requests[-1].url.params["invoiceNumber"] == invoice_number("charge-1")
    assert "idempotency-key" not in fake.requests[-1].headers


def test_status_of_an_unknown_or_foreign_reference(gateway: HelcimGateway) -> None:
    with pytest.raises(GatewayError, match="no object with that reference"):
        gateway.status(CREDS, "999999")
    with pytest.raises(GatewayError, match="no transaction with that reference"):
        gateway.status(CREDS, "ch_not_helcims")


def test_status_of_a_declined_charge_is_declined(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    with pytest.raises(Declined):
        gateway.charge(CREDS, card(fake.tokenize(cvv="225"), usd("10.00")))
    [txn] = fake.of_type("purchase")

    status = gateway.status(CREDS, str(txn["transactionId"]))

    assert (status.status, status.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


# --- declines and invalid tokens ------------------------------------------------------------


DECLINES = [
    ("200", "incorrect_cvc"),
    ("201", "fraudulent"),
    ("207", "processing_error"),
    ("209", "generic_decline"),
    ("210", "expired_card"),
    ("225", "insufficient_funds"),
]


@pytest.mark.parametrize(("cvv", "code"), DECLINES)
def test_declines_carry_a_normalised_code(
    gateway: HelcimGateway, fake: FakeHelcim, cvv: str, code: str
) -> None:
    token = fake.tokenize(cvv=cvv)
    with pytest.raises(Declined) as caught:
        gateway.charge(CREDS, card(token, usd("10.00")))

    assert caught.value.decline_code == code
    assert caught.value.gateway == "helcim"
    assert (caught.value.gateway_message or "").startswith("Transaction Declined:")
    assert token not in str(caught.value) + (caught.value.gateway_message or "")


@pytest.mark.parametrize(("cvv", "code"), DECLINES)
def test_declines_sent_as_http_500_are_still_declines(
    gateway: HelcimGateway, fake: FakeHelcim, cvv: str, code: str
) -> None:
    fake.declines_as_500 = True

    with pytest.raises(Declined) as caught:
        gateway.charge(CREDS, card(fake.tokenize(cvv=cvv), usd("10.00")))

    assert caught.value.decline_code == code
    assert caught.value.retry_safe is False


def test_a_suspected_duplicate_is_a_decline(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    token = fake.tokenize()
    gateway.charge(CREDS, card(token, usd("10.00"), key="first"))

    with pytest.raises(Declined, match="generic_decline") as caught:
        gateway.charge(CREDS, card(token, usd("10.00"), key="second"))

    assert "Suspected duplicate" in (caught.value.gateway_message or "")
    fake.advance(301)
    assert gateway.charge(CREDS, card(token, usd("10.00"), key="third")).status is (
        GatewayStatus.CAPTURED
    )


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Transaction Declined: DECLINED - Do Not Honor", "generic_decline"),
        ("Transaction Declined: EXPIRED CARD - Expired Card", "expired_card"),
        ("Transaction Declined: INVALID CAM/CVV", "incorrect_cvc"),
        ("Transaction Declined: DECLINE: NSF", "insufficient_funds"),
        ("Transaction Declined: SUSPECTED FRAUD", "fraudulent"),
        (None, "generic_decline"),
    ],
)
def test_decline_text_normalisation(text: str | None, code: str) -> None:
    assert normalise_decline(text) == code


def test_an_unknown_token_is_an_invalid_payment_method(gateway: HelcimGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(CREDS, card("0123456789abcdef012345", usd("10.00")))

    assert "0123456789abcdef012345" not in str(caught.value) + str(caught.value.gateway_message)


# --- credentials, outages -------------------------------------------------------------------


def test_bad_credentials_are_rejected_without_echoing_the_token(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    wrong = GatewayCredentials(api_secret="notTheRightApiToken1234567", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(wrong, card(fake.tokenize(), usd("10.00")))

    assert "notTheRightApiToken" not in str(vars(caught.value))
    with pytest.raises(GatewayCredentialsRejected, match="empty"):
        gateway.charge(GatewayCredentials(" ", True), card(fake.tokenize(), usd("1.00")))


def test_test_and_live_share_one_host(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    live = GatewayCredentials(api_secret=API_TOKEN, sandbox=False)

    gateway.charge(live, card(fake.tokenize(), usd("10.00")))

    assert str(fake.requests[-1].url) == f"{BASE_URL}/payment/purchase"


# --- idempotency and lost charges -----------------------------------------------------------


def test_a_retry_within_five_minutes_is_answered_with_the_original(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    request = card(fake.tokenize(), usd("10.00"), key="same-key")

    first = gateway.charge(CREDS, request)
    fake.advance(120)
    again = gateway.charge(CREDS, request)

    assert again.reference == first.reference
    assert len(fake.of_type("purchase")) == 1


def test_a_key_reused_for_another_request_is_refused(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    token = fake.tokenize()
    gateway.charge(CREDS, card(token, usd("10.00"), key="same-key"))

    with pytest.raises(GatewayError, match="idempotency key") as caught:
        gateway.charge(CREDS, card(token, usd("11.00"), key="same-key"))

    assert caught.value.retry_safe is False


def test_a_charge_whose_answer_was_lost_is_found_by_lookup_after_helcim_forgot_the_key(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    assert isinstance(gateway, FindsLostCharges)
    request = card(fake.tokenize(), usd("10.05"), key="lost-key")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        gateway.charge(CREDS, request)
    fake.advance(600)  # Helcim's 5-minute idempotency window is over

    found = gateway.lookup(CREDS, request)

    [txn] = fake.of_type("purchase")
    assert found is not None
    assert (found.reference, found.status, found.amount) == (
        str(txn["transactionId"]),
        GatewayStatus.CAPTURED,
        usd("10.05"),
    )
    assert found.support["found_by"] == "lookup"
    assert fake.requests[-1].url.params["invoiceNumber"] == invoice_number("lost-key")
    assert gateway.lookup(CREDS, card("x", usd("10.05"), key="never-sent")) is None
    # an authorization under the same key is another charge: lookup does not mistake the sale
    assert gateway.lookup(CREDS, card("x", usd("10.05"), capture=False, key="lost-key")) is None


def test_a_resend_after_the_window_cannot_charge_twice(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    request = card(fake.tokenize(), usd("10.05"), key="lost-key")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        gateway.charge(CREDS, request)
    fake.advance(600)

    with pytest.raises(GatewayError, match="refused"):
        gateway.charge(CREDS, request)  # the invoice number is taken: Helcim refuses

    assert len(fake.of_type("purchase")) == 1


def test_a_lost_decline_is_found_as_a_decline(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    request = card(fake.tokenize(cvv="210"), usd("10.00"), key="lost-decline")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        gateway.charge(CREDS, request)

    with pytest.raises(Declined) as caught:
        gateway.lookup(CREDS, request)

    assert caught.value.decline_code == "expired_card"


def test_keys_are_stable_alphanumeric_and_distinct_per_step() -> None:
    assert helcim_key("k") == helcim_key("k")
    assert helcim_key("k") != helcim_key("k", "other")
    assert re.fullmatch(r"[A-Z2-7]{25}", helcim_key("x" * 500))
    assert re.fullmatch(r"PH[A-Z2-7]{18}", invoice_number("k"))


def test_amounts_are_decimal_numbers() -> None:
    assert helcim_amount(usd("10.05")) == Decimal("10.05")
    assert helcim_amount(Money.of(7, "CAD")) == Decimal("7.00")


# --- the vault ------------------------------------------------------------------------------


def save(token: str, customer: str | None = None, key: str = "save-1") -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=token,
        customer_id="cus_payhub_7",
        gateway_customer_ref=customer,
        email="ada@example.com",
        name="Ada Lovelace",
        idempotency_key=key,
    )


def test_saving_a_card_adopts_the_customer_helcimpay_vaulted_it_on(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    token = fake.tokenize("4124939999999990", expiry="0929")

    saved = gateway.save_payment_method(CREDS, save(token))

    [customer] = fake.customers.values()
    assert saved.gateway_customer_ref == customer["customerCode"]
    assert saved.method_ref == token
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("visa", "9990", 9, 2029)
    paths = [r.url.path for r in fake.requests]
    assert paths == [
        "/v2/card-transactions",
        "/v2/customers",
        f"/v2/customers/{customer['id']}/cards",
    ]
    assert not fake.posts("/payment/purchase")  # saving never charges


def test_a_second_card_of_the_same_customer_keeps_the_customer(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    first = gateway.save_payment_method(CREDS, save(fake.tokenize()))

    second = gateway.save_payment_method(
        CREDS,
        save(
            fake.tokenize("5555555555554444", customer_code=first.gateway_customer_ref),
            first.gateway_customer_ref,
            "save-2",
        ),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert (second.brand, second.last4) == ("mastercard", "4444")
    assert len(fake.customers) == 1


def test_charge_a_saved_card_with_its_customer_code(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    saved = gateway.save_payment_method(CREDS, save(fake.tokenize()))
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(CREDS, ChargeRequest(usd("25.00"), source, True, "saved-1"))

    assert result.status is GatewayStatus.CAPTURED
    body = fake.bodies("/payment/purchase")[0]
    assert body["cardData"] == {"cardToken": saved.method_ref}
    assert body["customerCode"] == saved.gateway_customer_ref


def test_a_saved_card_charged_for_the_wrong_customer_is_invalid(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    saved = gateway.save_payment_method(CREDS, save(fake.tokenize()))
    source = PaymentSource(
        MethodType.CARD, saved_method_ref=saved.method_ref, gateway_customer_ref="CST999999"
    )

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(CREDS, ChargeRequest(usd("25.00"), source, True, "wrong-owner"))


def test_saving_an_unknown_token_is_an_invalid_payment_method(gateway: HelcimGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(CREDS, save("ffffffffffffffffffffff"))

    assert "ffffffffffffffffffffff" not in str(caught.value)


def test_a_card_removed_from_the_vault_cannot_be_saved(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    token = fake.tokenize()
    del fake.cards[token]["customerId"]
    fake.cards[token]["customerId"] = -1  # moved away: not on the customer any more

    with pytest.raises(PaymentMethodInvalid, match="no longer"):
        gateway.save_payment_method(CREDS, save(token))


def test_bank_accounts_are_not_taken(gateway: HelcimGateway, fake: FakeHelcim) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="bank")
    with pytest.raises(ValueError, match="card"):
        gateway.charge(CREDS, ChargeRequest(usd("5.00"), source, True, "ach"))
    with pytest.raises(ValueError, match="card"):
        gateway.save_payment_method(
            CREDS, SaveMethodRequest(MethodType.BANK_ACCOUNT, "bank", "cus_1", None)
        )
    assert fake.requests == []


# --- no secret or token leaks ---------------------------------------------------------------


def test_no_secret_or_token_reaches_an_error_or_a_result(
    gateway: HelcimGateway, fake: FakeHelcim
) -> None:
    token = fake.tokenize()
    result = gateway.charge(CREDS, card(token, usd("10.00")))
    failures: list[GatewayError] = []
    for attempt in (
        lambda: gateway.charge(CREDS, card(token, usd("10.00"), key="dup")),
        lambda: gateway.charge(
            GatewayCredentials(api_secret="bad-" + API_TOKEN, sandbox=True),
            card(fake.tokenize(), usd("1.00")),
        ),
        lambda: gateway.charge(CREDS, card(token + "00", usd("2.00"), key="unknown")),
        lambda: gateway.refund(CREDS, result.reference, usd("99.00"), "too-much"),
    ):
        with pytest.raises(GatewayError) as caught:
            attempt()
        failures.append(caught.value)

    for text in [str(result), *(f"{e} {e.gateway_message} {vars(e)}" for e in failures)]:
        assert API_TOKEN not in text
        assert token not in text


def test_a_token_echoed_by_helcim_is_blanked_from_the_gateway_message() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400, json={"errors": {"cardToken": "Bad token 9f8e7d6c5b4a39281706ab for " + API_TOKEN}}
        )

    with (
        httpx.Client(transport=httpx.MockTransport(echo)) as client,
        pytest.raises(PaymentMethodInvalid) as caught,
    ):
        HelcimGateway(client).charge(CREDS, card("9f8e7d6c5b4a39281706ab", usd("1.00")))

    assert "9f8e7d6c5b4a39281706ab" not in (caught.value.gateway_message or "")
    assert API_TOKEN not in (caught.value.gateway_message or "")


# --- through payhub's HTTP API --------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeHelcim) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"helcim": HelcimGateway})


def test_a_charge_through_payhubs_api_reaches_helcim(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeHelcim,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    put = client.put(
        "/api/merchant-accounts/shop-1/credentials/helcim",
        json={"apiSecret": API_TOKEN, "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.05", "currency": "USD"},
            "gatewayName": "helcim",
            "paymentMethodToken": fake.tokenize(),
            "capture": False,
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Authorized"
    [auth] = fake.of_type("preauth")
    assert body["gatewayReference"] == str(auth["transactionId"])
    assert auth["amount"] == Decimal("25.05")
    with hub.store.unit_of_work(readonly=True) as uow:
        merchant = next(m for p in uow.providers.list() for m in uow.merchants.list(p.id))
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.gateway_reference) == (TxStatus.AUTHORIZED, str(auth["transactionId"]))
    request = fake.posts("/payment/preauth")[0]
    assert request.headers["idempotency-key"] == helcim_key(tx.gateway_key)
    assert auth["invoiceNumber"] == invoice_number(tx.gateway_key)

    declined = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "5.00", "currency": "USD"},
            "gatewayName": "helcim",
            "paymentMethodToken": fake.tokenize(cvv="225"),
        },
        headers=headers,
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
    with hub.store.unit_of_work(readonly=True) as uow:
        failed = uow.transactions.get(merchant.id, declined.json()["transactionId"])
    assert failed is not None
    assert (failed.status, failed.decline_code) == (TxStatus.FAILED, "insufficient_funds")
