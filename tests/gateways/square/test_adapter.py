"""The Square adapter against the in-memory fake of Square's API (``fake.py``)."""

from __future__ import annotations

import json
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.gateways.square.adapter import (
    IDEMPOTENCY_KEY_MAX,
    SQUARE_VERSION,
    SquareGateway,
    wire_idempotency_key,
)
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
)
from tests.gateways.square.fake import ACCESS_TOKEN, LOCATION_ID, FakeSquare
from tests.gateways.support import usd

OK = "cnon:card-nonce-ok"
BANK = "bnon:bank-nonce-ok"


@pytest.fixture
def fake() -> FakeSquare:
    return FakeSquare()


@pytest.fixture
def gateway(fake: FakeSquare) -> SquareGateway:
    return SquareGateway(fake.client())


@pytest.fixture
def creds() -> GatewayCredentials:
    return GatewayCredentials(ACCESS_TOKEN, sandbox=True, fields={"locationId": LOCATION_ID})


def card(
    amount: Money,
    *,
    token: str = OK,
    capture: bool = True,
    key: str = "key-1",
    description: str | None = None,
) -> ChargeRequest:
    return ChargeRequest(
        amount, PaymentSource(MethodType.CARD, token=token), capture, key, description
    )


def test_sale_completes_the_payment(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    result = gateway.charge(creds, card(usd("25.00"), description="Order 1042"))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("25.00")
    assert fake.payments[result.reference]["status"] == "COMPLETED"
    (sent,) = fake.bodies("POST", "/v2/payments")
    assert sent["source_id"] == OK
    assert sent["autocomplete"] is True
    assert sent["location_id"] == LOCATION_ID
    assert sent["note"] == "Order 1042"
    assert result.support == {
        "payment_status": "COMPLETED",
        "source_type": "CARD",
        "card_status": "CAPTURED",
    }


def test_each_call_carries_the_bearer_token_and_pinned_version(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("1.00")))

    (request,) = fake.requests
    assert request.headers["Authorization"] == f"Bearer {ACCESS_TOKEN}"
    assert request.headers["Square-Version"] == SQUARE_VERSION
    assert request.headers["Content-Type"] == "application/json"


def test_authorize_then_capture_in_full(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.bodies("POST", "/v2/payments")[0]["autocomplete"] is False

    captured = gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.reference == auth.reference
    assert captured.amount == usd("40.00")
    assert not [r for r in fake.requests if r.method == "PUT"]  # nothing to lower


def test_partial_capture_lowers_the_amount_before_completing(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    captured = gateway.capture(creds, auth.reference, usd("32.50"), "cap-1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.amount == usd("32.50")
    (update,) = fake.bodies("PUT", f"/v2/payments/{auth.reference}")
    assert update["payment"]["amount_money"] == {"amount": 3250, "currency": "USD"}
    assert update["idempotency_key"] == wire_idempotency_key("capture", "cap-1")
    assert fake.payments[auth.reference]["status"] == "COMPLETED"
    assert fake.payments[auth.reference]["total_money"]["amount"] == 3250


def test_a_retried_capture_is_answered_from_square_state(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    gateway.capture(creds, auth.reference, usd("30.00"), "cap-1")

    again = gateway.capture(creds, auth.reference, usd("30.00"), "cap-1")

    assert again.status is GatewayStatus.CAPTURED
    assert again.amount == usd("30.00")
    assert len([r for r in fake.requests if r.url.path.endswith("/complete")]) == 1


def test_refund_part_then_the_rest(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    part = gateway.refund(creds, sale.reference, usd("20.00"), "ref-1")
    # Square answers a refund PENDING: accepted, finished later.
    assert part.status is GatewayStatus.PENDING
    assert part.amount == usd("20.00")
    assert fake.refunds[part.reference]["payment_id"] == sale.reference
    assert part.support == {"refund_status": "PENDING", "payment_id": sale.reference}
    pending = gateway.status(creds, sale.reference)
    assert (pending.status, pending.refunded, pending.refunding) == (
        GatewayStatus.CAPTURED,
        usd("0.00"),
        usd("20.00"),
    )
    fake.finish_refunds()
    done = gateway.status(creds, sale.reference)
    assert (done.status, done.refunded, done.refunding) == (
        GatewayStatus.CAPTURED,
        usd("20.00"),
        usd("0.00"),
    )

    rest = gateway.refund(creds, sale.reference, usd("30.00"), "ref-2")
    assert rest.amount == usd("30.00")
    assert gateway.status(creds, sale.reference).status is GatewayStatus.CAPTURED
    fake.finish_refunds()
    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED
    assert fake.violations == []
    bodies = fake.bodies("POST", "/v2/refunds")
    assert [b["amount_money"]["amount"] for b in bodies] == [2000, 3000]
    assert bodies[0]["idempotency_key"] == wire_idempotency_key("refund", "ref-1")


def test_refund_in_full(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    refund = gateway.refund(creds, sale.reference, usd("50.00"), "ref-1")

    assert refund.amount == usd("50.00")
    assert fake.payments[sale.reference]["refunded_money"]["amount"] == 5000
    assert gateway.status(creds, sale.reference).status is GatewayStatus.CAPTURED  # pending
    fake.finish_refunds()
    assert gateway.status(creds, sale.reference).status is GatewayStatus.REFUNDED


def test_a_retried_refund_is_not_repeated(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    first = gateway.refund(creds, sale.reference, usd("20.00"), "ref-1")
    again = gateway.refund(creds, sale.reference, usd("20.00"), "ref-1")

    assert again.reference == first.reference
    assert len(fake.refunds) == 1


def test_refunding_more_than_is_left_is_refused(
    gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    with pytest.raises(GatewayError) as raised:
        gateway.refund(creds, sale.reference, usd("60.00"), "ref-1")

    assert type(raised.value) is GatewayError
    assert "refund_amount_invalid" in str(raised.value)


def test_void_cancels_an_authorization_and_a_repeat_is_harmless(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    voided = gateway.void(creds, auth.reference, "void-1")
    again = gateway.void(creds, auth.reference, "void-1")

    assert voided.status is GatewayStatus.VOIDED
    assert voided.amount == usd("40.00")
    assert again.status is GatewayStatus.VOIDED
    assert fake.payments[auth.reference]["status"] == "CANCELED"


def test_status_reports_what_square_holds(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("12.34"), capture=False))

    status = gateway.status(creds, auth.reference)

    assert status.status is GatewayStatus.AUTHORIZED
    assert status.amount == usd("12.34")
    assert status.reference == auth.reference
    assert fake.requests[-1].method == "GET"


def test_status_of_an_unknown_payment_is_a_gateway_error_not_a_bad_card(
    gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError) as raised:
        gateway.status(creds, "no-such-payment")

    assert type(raised.value) is GatewayError


def test_a_reference_cannot_change_the_endpoint(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError):
        gateway.status(creds, "../refunds")

    assert fake.requests[-1].url.raw_path == b"/v2/payments/..%2Frefunds"


def test_save_a_card_creates_the_customer_and_the_card_can_be_charged(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD,
            fake.card_nonce(),
            customer_id="cus_42",
            gateway_customer_ref=None,
            email="ada@example.com",
            name="Ada Lovelace",
            idempotency_key="save-1",
        ),
    )

    assert saved.method_ref in fake.cards
    assert saved.gateway_customer_ref in fake.customers
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("visa", "5858", 12, 2030)
    assert saved.bank_name is None
    (customer,) = fake.bodies("POST", "/v2/customers")
    assert customer["reference_id"] == "cus_42"
    assert customer["email_address"] == "ada@example.com"
    (card_body,) = fake.bodies("POST", "/v2/cards")
    assert card_body["card"] == {"customer_id": saved.gateway_customer_ref}
    assert card_body["idempotency_key"] == wire_idempotency_key("card", "save-1")

    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.99"), source, True, "key-9"))

    assert result.status is GatewayStatus.CAPTURED
    sent = fake.bodies("POST", "/v2/payments")[-1]
    assert sent["source_id"] == saved.method_ref
    assert sent["customer_id"] == saved.gateway_customer_ref
    assert fake.payments[result.reference]["card_details"]["entry_method"] == "ON_FILE"


def test_save_a_card_for_a_known_customer_and_without_a_name(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    first = gateway.save_payment_method(
        creds, SaveMethodRequest(MethodType.CARD, OK, "cus_7", None, idempotency_key="s-1")
    )
    second = gateway.save_payment_method(
        creds,
        SaveMethodRequest(
            MethodType.CARD, OK, "cus_7", first.gateway_customer_ref, idempotency_key="s-2"
        ),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert len(fake.customers) == 1
    assert fake.bodies("POST", "/v2/customers")[0]["given_name"] == "payhub cus_7"
    assert len(fake.cards) == 2


def test_saving_a_used_card_token_is_payment_method_invalid(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    nonce = fake.card_nonce()
    gateway.charge(creds, card(usd("1.00"), token=nonce))

    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(
            creds, SaveMethodRequest(MethodType.CARD, nonce, "cus_1", None, name="Ada")
        )


def test_a_saved_card_needs_its_customer(gateway: SquareGateway, creds: GatewayCredentials) -> None:
    source = PaymentSource(MethodType.CARD, saved_method_ref="ccof:abc")

    with pytest.raises(ValueError, match="customer"):
        gateway.charge(creds, ChargeRequest(usd("1.00"), source, True, "k"))


def test_bank_accounts_are_not_saved_with_square(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(ValueError, match="beta"):
        gateway.save_payment_method(
            creds, SaveMethodRequest(MethodType.BANK_ACCOUNT, BANK, "cus_1", None, name="Ada")
        )

    assert fake.requests == []


def test_ach_charge_is_submitted_and_settles_later(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token=BANK)

    result = gateway.charge(creds, ChargeRequest(usd("100.00"), source, True, "ach-1"))

    assert result.status is GatewayStatus.SUBMITTED
    assert result.support["source_type"] == "BANK_ACCOUNT"
    assert fake.bodies("POST", "/v2/payments")[0]["autocomplete"] is True
    fake.settle(result.reference)
    assert gateway.status(creds, result.reference).status is GatewayStatus.CAPTURED


@pytest.mark.parametrize(
    ("source", "amount", "capture"),
    [
        (PaymentSource(MethodType.BANK_ACCOUNT, token=BANK), Money.of("5", "USD"), False),
        (PaymentSource(MethodType.BANK_ACCOUNT, token=BANK), Money.of("5", "EUR"), True),
        (
            PaymentSource(
                MethodType.BANK_ACCOUNT, saved_method_ref="bact:1", gateway_customer_ref="C"
            ),
            Money.of("5", "USD"),
            True,
        ),
    ],
    ids=["authorize-only", "not-usd", "saved-bank-account"],
)
def test_ach_that_square_cannot_do_is_refused_before_any_call(
    fake: FakeSquare,
    gateway: SquareGateway,
    creds: GatewayCredentials,
    source: PaymentSource,
    amount: Money,
    capture: bool,
) -> None:
    with pytest.raises(ValueError, match="ACH"):
        gateway.charge(creds, ChargeRequest(amount, source, capture, "ach-1"))

    assert fake.requests == []


@pytest.mark.parametrize(
    ("token", "decline_code", "square_code"),
    [
        ("cnon:card-nonce-declined", "generic_decline", "GENERIC_DECLINE"),
        ("cnon:card-nonce-insufficient-funds", "insufficient_funds", "INSUFFICIENT_FUNDS"),
        ("cnon:card-nonce-rejected-cvv", "incorrect_cvc", "CVV_FAILURE"),
        ("cnon:card-nonce-rejected-expiration", "expired_card", "INVALID_EXPIRATION"),
        ("cnon:card-nonce-rejected-postalcode", "generic_decline", "ADDRESS_VERIFICATION_FAILURE"),
    ],
)
def test_a_decline_carries_a_normalised_code_and_square_message(
    gateway: SquareGateway,
    creds: GatewayCredentials,
    token: str,
    decline_code: str,
    square_code: str,
) -> None:
    with pytest.raises(Declined) as raised:
        gateway.charge(creds, card(usd("10.00"), token=token))

    assert raised.value.decline_code == decline_code
    assert raised.value.gateway == "square"
    assert raised.value.gateway_message == f"Authorization error: '{square_code}'"
    assert decline_code in str(raised.value)


@pytest.mark.parametrize(
    "token",
    ["cnon:not-a-real-nonce", "cnon:card-nonce-already-used", "cnon:card-nonce-expired"],
)
def test_an_unusable_token_is_payment_method_invalid(
    gateway: SquareGateway, creds: GatewayCredentials, token: str
) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, card(usd("10.00"), token=token))


def test_a_nonce_is_single_use(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    nonce = fake.card_nonce()
    gateway.charge(creds, card(usd("10.00"), token=nonce, key="a"))

    with pytest.raises(PaymentMethodInvalid, match="card_token_used"):
        gateway.charge(creds, card(usd("10.00"), token=nonce, key="b"))


def test_an_unknown_saved_card_is_payment_method_invalid(
    gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    source = PaymentSource(MethodType.CARD, saved_method_ref="ccof:gone", gateway_customer_ref="C1")

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, ChargeRequest(usd("1.00"), source, True, "k"))


def test_a_wrong_access_token_is_rejected_credentials(gateway: SquareGateway) -> None:
    creds = GatewayCredentials("EAAAEwrong", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(creds, card(usd("10.00")))


def test_a_wrong_location_is_rejected_credentials(gateway: SquareGateway) -> None:
    creds = GatewayCredentials(ACCESS_TOKEN, sandbox=True, fields={"locationId": "LNOPE"})

    with pytest.raises(GatewayCredentialsRejected) as raised:
        gateway.charge(creds, card(usd("10.00")))

    assert raised.value.gateway_message == "Location `LNOPE` not found."


def test_an_auth_error_in_a_400_body_is_rejected_credentials(creds: GatewayCredentials) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        error = {"category": "AUTHENTICATION_ERROR", "code": "ACCESS_TOKEN_EXPIRED"}
        return httpx.Response(400, json={"errors": [error]})

    gateway = SquareGateway(httpx.Client(transport=httpx.MockTransport(handler)))

    with pytest.raises(GatewayCredentialsRejected):
        gateway.status(creds, "pay1")


def test_a_500_is_gateway_unavailable(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    fake.fail_next()

    with pytest.raises(GatewayUnavailable) as raised:
        gateway.charge(creds, card(usd("10.00")))

    assert raised.value.retry_safe
    assert fake.payments == {}


def test_a_body_that_is_not_json_is_a_gateway_error(creds: GatewayCredentials) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>maintenance</html>")

    gateway = SquareGateway(httpx.Client(transport=httpx.MockTransport(handler)))

    with pytest.raises(GatewayError, match="Square answered in an unexpected shape"):
        gateway.charge(creds, card(usd("10.00")))


def test_the_idempotency_key_is_on_the_wire_and_a_retry_reuses_it(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    key = "charge-7f3a" * 10  # longer than Square allows: hashed down to fit

    first = gateway.charge(creds, card(usd("10.00"), key=key))
    retry = gateway.charge(creds, card(usd("10.00"), key=key))

    sent = [b["idempotency_key"] for b in fake.bodies("POST", "/v2/payments")]
    assert sent == [wire_idempotency_key("payment", key)] * 2
    assert len(sent[0]) <= IDEMPOTENCY_KEY_MAX
    assert retry.reference == first.reference
    assert len(fake.payments) == 1


def test_wire_keys_are_stable_and_distinct_per_operation_and_key() -> None:
    assert wire_idempotency_key("payment", "k") == wire_idempotency_key("payment", "k")
    keys = {wire_idempotency_key(op, k) for op in ("payment", "refund") for k in ("k", "k2")}
    assert len(keys) == 4
    assert all(len(k) <= IDEMPOTENCY_KEY_MAX for k in keys)


def test_a_reused_key_with_another_amount_is_refused(
    gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("10.00"), key="same"))

    with pytest.raises(GatewayError, match="idempotency_key_reused"):
        gateway.charge(creds, card(usd("11.00"), key="same"))


def test_sandbox_credentials_use_the_sandbox_host(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("1.00")))

    assert str(fake.requests[0].url) == "https://connect.squareupsandbox.com/v2/payments"


def test_live_credentials_use_the_live_host() -> None:
    live = FakeSquare(sandbox=False)
    gateway = SquareGateway(live.client())

    result = gateway.charge(GatewayCredentials(ACCESS_TOKEN, sandbox=False), card(usd("1.00")))

    assert result.status is GatewayStatus.CAPTURED
    assert str(live.requests[0].url) == "https://connect.squareup.com/v2/payments"


def test_sandbox_credentials_never_reach_the_live_account(creds: GatewayCredentials) -> None:
    live = FakeSquare(sandbox=False)

    with pytest.raises(GatewayCredentialsRejected):
        SquareGateway(live.client()).charge(creds, card(usd("1.00")))

    assert live.payments == {}


def test_amounts_go_out_as_exact_minor_units(
    fake: FakeSquare, gateway: SquareGateway, creds: GatewayCredentials
) -> None:
    result = gateway.charge(creds, card(usd("10.05")))

    raw = json.loads(fake.requests[0].content)
    assert raw["amount_money"] == {"amount": 1005, "currency": "USD"}
    assert type(raw["amount_money"]["amount"]) is int
    assert result.amount.amount == Decimal("10.05")


def test_a_zero_decimal_currency_is_sent_as_is() -> None:
    fake = FakeSquare(currency="JPY")
    gateway = SquareGateway(fake.client())
    creds = GatewayCredentials(ACCESS_TOKEN, sandbox=True)

    result = gateway.charge(creds, card(Money.of("1500", "JPY")))

    assert fake.bodies("POST", "/v2/payments")[0]["amount_money"] == {
        "amount": 1500,
        "currency": "JPY",
    }
    assert "location_id" not in fake.bodies("POST", "/v2/payments")[0]
    assert result.amount == Money.of("1500", "JPY")


@pytest.mark.parametrize(
    ("token", "api_secret", "failure"),
    [
        ("cnon:card-nonce-declined", ACCESS_TOKEN, Declined),
        ("cnon:not-a-real-nonce", ACCESS_TOKEN, PaymentMethodInvalid),
        (OK, "EAAAEsecret-that-is-wrong", GatewayCredentialsRejected),
    ],
)
def test_no_token_or_secret_in_exception_messages(
    gateway: SquareGateway,
    token: str,
    api_secret: str,
    failure: type[Exception],
) -> None:
    creds = GatewayCredentials(api_secret, sandbox=True)

    with pytest.raises(failure) as raised:
        gateway.charge(creds, card(usd("10.00"), token=token))

    assert token not in str(raised.value)
    assert api_secret not in str(raised.value)


def test_a_token_echoed_by_square_is_blanked_from_the_gateway_message(
    creds: GatewayCredentials,
) -> None:
    token = "cnon:secret-looking-nonce"

    def handler(request: httpx.Request) -> httpx.Response:
        error = {
            "category": "INVALID_REQUEST_ERROR",
            "code": "CARD_TOKEN_EXPIRED",
            "detail": f"Nonce {token} expired for {ACCESS_TOKEN}",
        }
        return httpx.Response(400, json={"errors": [error]})

    gateway = SquareGateway(httpx.Client(transport=httpx.MockTransport(handler)))

    with pytest.raises(PaymentMethodInvalid) as raised:
        gateway.charge(creds, card(usd("1.00"), token=token))

    assert raised.value.gateway_message == "Nonce [redacted] expired for [redacted]"
    assert token not in str(raised.value)
