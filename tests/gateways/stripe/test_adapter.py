"""The Stripe adapter against an in-memory fake of Stripe's API
(its fake.py beside this file)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import parse_qsl

import attrs
import httpx
import pytest

from payhub.adapters.gateways.stripe.adapter import (
    API_BASE,
    STRIPE_VERSION,
    StripeGateway,
    form_pairs,
    normalise_decline,
    stripe_amount,
)
from payhub.domain.debit_authorizations import DebitAuthorization
from payhub.domain.errors import ValidationError
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
from tests.gateways.stripe.fake import LIVE_KEY, TEST_KEY, FakeStripe
from tests.gateways.support import usd

SANDBOX = GatewayCredentials(api_secret=TEST_KEY, sandbox=True)
LIVE = GatewayCredentials(api_secret=LIVE_KEY, sandbox=False)


@pytest.fixture
def fake() -> FakeStripe:
    return FakeStripe()


@pytest.fixture
def gateway(fake: FakeStripe) -> Iterator[StripeGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield StripeGateway(client)


def card(
    amount: Money,
    token: str = "pm_card_visa",
    capture: bool = True,
    key: str = "charge-1",
) -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=token), capture, key)


def bank(amount: Money, token: str = "pm_usBankAccount_success") -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.BANK_ACCOUNT, token=token), True, "ach-1")


def form(request: httpx.Request) -> dict[str, str]:
    return dict(parse_qsl(request.content.decode(), keep_blank_values=True))


# --- charges, captures, refunds, voids, status --------------------------------------------


def test_sale_sends_a_confirmed_automatic_payment_intent(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    result = gateway.charge(SANDBOX, card(usd("10.05")))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert result.reference.startswith("pi_")
    assert fake.payment_intents[result.reference]["status"] == "succeeded"
    sent = form(fake.posts("/v1/payment_intents")[0])
    assert sent == {
        "amount": "1005",
        "currency": "usd",
        "confirm": "true",
        "capture_method": "automatic",
        "payment_method_types[]": "card",
        "payment_method": "pm_card_visa",
        "error_on_requires_action": "true",
    }
    assert result.support["request_id"].startswith("req_")
    assert result.support["stripe_status"] == "succeeded"


def test_requests_carry_bearer_auth_pinned_version_and_form_encoding(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    gateway.charge(SANDBOX, card(usd("20.00")))

    request = fake.requests[0]
    assert str(request.url) == f"{API_BASE}/payment_intents"
    assert request.headers["Authorization"] == f"Bearer {TEST_KEY}"
    assert request.headers["Stripe-Version"] == STRIPE_VERSION
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"


def test_zero_decimal_currency_is_sent_without_decimals(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    result = gateway.charge(SANDBOX, card(Money.of(1500, "JPY")))

    assert form(fake.requests[0])["amount"] == "1500"
    assert form(fake.requests[0])["currency"] == "jpy"
    assert result.amount == Money.of(1500, "JPY")


@pytest.mark.parametrize(
    ("amount", "currency", "units"),
    [
        ("10.05", "USD", 1005),
        ("0.50", "EUR", 50),
        ("1500", "JPY", 1500),
        ("250", "MGA", 250),  # ISO has two decimals, Stripe none
        ("500", "ISK", 50000),  # ISO has none, Stripe sends two
        ("5.120", "KWD", 5120),
    ],
)
def test_stripe_minor_units(amount: str, currency: str, units: int) -> None:
    assert stripe_amount(Money.of(Decimal(amount), currency)) == units


@pytest.mark.parametrize(("amount", "currency"), [("5.124", "KWD"), ("10.50", "MGA")])
def test_amounts_stripe_cannot_represent_are_refused(amount: str, currency: str) -> None:
    with pytest.raises(ValidationError):
        stripe_amount(Money.of(Decimal(amount), currency))


def test_authorize_then_capture_in_full(gateway: StripeGateway, fake: FakeStripe) -> None:
    auth = gateway.charge(SANDBOX, card(usd("42.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert auth.amount == usd("42.00")
    assert form(fake.requests[0])["capture_method"] == "manual"

    captured = gateway.capture(SANDBOX, auth.reference, usd("42.00"), "capture-1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.reference == auth.reference
    assert captured.amount == usd("42.00")
    capture_request = fake.posts(f"/v1/payment_intents/{auth.reference}/capture")[0]
    assert form(capture_request) == {"amount_to_capture": "4200"}
    assert capture_request.headers["Idempotency-Key"] == "capture-1"


def test_authorize_then_capture_part(gateway: StripeGateway, fake: FakeStripe) -> None:
    auth = gateway.charge(SANDBOX, card(usd("10.00"), capture=False))

    captured = gateway.capture(SANDBOX, auth.reference, usd("6.00"), "capture-1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.amount == usd("6.00")
    status = gateway.status(SANDBOX, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, usd("6.00"))


def test_capturing_a_sale_is_refused_with_stripes_reason(gateway: StripeGateway) -> None:
    sale = gateway.charge(SANDBOX, card(usd("10.00")))

    with pytest.raises(GatewayError) as caught:
        gateway.capture(SANDBOX, sale.reference, usd("10.00"), "capture-1")

    assert type(caught.value) is GatewayError
    assert "payment_intent_unexpected_state" in str(caught.value)
    assert "status of succeeded" in (caught.value.gateway_message or "")


def test_refund_in_full(gateway: StripeGateway, fake: FakeStripe) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00")))

    refund = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "refund-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert refund.reference.startswith("re_")
    assert refund.amount == usd("30.00")
    assert refund.support["payment_intent"] == sale.reference
    request = fake.posts("/v1/refunds")[0]
    assert form(request) == {"payment_intent": sale.reference, "amount": "3000"}
    assert request.headers["Idempotency-Key"] == "refund-1"
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.REFUNDED


def test_partial_refunds_until_nothing_is_left(gateway: StripeGateway) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00")))

    first = gateway.refund(SANDBOX, sale.reference, usd("12.50"), "refund-1")
    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("12.50"))
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.CAPTURED

    gateway.refund(SANDBOX, sale.reference, usd("17.50"), "refund-2")
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError, match="amount_too_large"):
        gateway.refund(SANDBOX, sale.reference, usd("0.01"), "refund-3")


def test_void_cancels_the_authorization(gateway: StripeGateway, fake: FakeStripe) -> None:
    auth = gateway.charge(SANDBOX, card(usd("15.00"), capture=False))

    voided = gateway.void(SANDBOX, auth.reference, "void-1")

    assert voided.status is GatewayStatus.VOIDED
    assert voided.reference == auth.reference
    assert fake.payment_intents[auth.reference]["status"] == "canceled"
    assert (
        fake.posts(f"/v1/payment_intents/{auth.reference}/cancel")[0].headers["Idempotency-Key"]
        == "void-1"
    )
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.VOIDED


def test_status_of_an_authorization(gateway: StripeGateway, fake: FakeStripe) -> None:
    auth = gateway.charge(SANDBOX, card(usd("15.00"), capture=False))

    status = gateway.status(SANDBOX, auth.reference)

    assert (status.status, status.amount) == (GatewayStatus.AUTHORIZED, usd("15.00"))
    get = fake.requests[-1]
    assert get.method == "GET"
    assert get.url.params.get_list("expand[]") == ["latest_charge.refunds"]
    assert "Idempotency-Key" not in get.headers


def test_status_of_an_unknown_reference(gateway: StripeGateway) -> None:
    with pytest.raises(GatewayError, match="no object with that reference"):
        gateway.status(SANDBOX, "pi_missing")


# --- declines and invalid payment methods ------------------------------------------------


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("pm_card_visa_chargeDeclined", "generic_decline"),
        ("pm_card_visa_chargeDeclinedInsufficientFunds", "insufficient_funds"),
        ("pm_card_chargeDeclinedExpiredCard", "expired_card"),
        ("pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc"),
        ("pm_card_chargeDeclinedFraudulent", "fraudulent"),
        ("pm_card_chargeDeclinedProcessingError", "processing_error"),
    ],
)
def test_declines_carry_a_normalised_code(gateway: StripeGateway, token: str, code: str) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token=token))

    assert caught.value.decline_code == code
    assert caught.value.gateway == "stripe"
    assert caught.value.gateway_message  # Stripe's own words, e.g. "Your card was declined."
    assert (caught.value.gateway_request_id or "").startswith("req_")


@pytest.mark.parametrize(
    ("stripe_code", "payhub_code"),
    [
        ("do_not_honor", "generic_decline"),
        ("stolen_card", "fraudulent"),
        ("invalid_cvc", "incorrect_cvc"),
        ("try_again_later", "processing_error"),
        (None, "generic_decline"),
    ],
)
def test_decline_code_normalisation(stripe_code: str | None, payhub_code: str) -> None:
    assert normalise_decline(stripe_code) == payhub_code


def test_a_declined_charge_is_replayed_not_retried(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    request = card(usd("10.00"), token="pm_card_visa_chargeDeclinedInsufficientFunds")
    for _ in range(2):
        with pytest.raises(Declined):
            gateway.charge(SANDBOX, request)

    assert len(fake.payment_intents) == 1


def test_unknown_token_is_an_invalid_payment_method(gateway: StripeGateway) -> None:
    token = "pm_1SecretLookingToken"
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token=token))

    assert token not in str(caught.value)
    assert token not in (caught.value.gateway_message or "")
    assert "No such PaymentMethod" in (caught.value.gateway_message or "")


def test_a_used_token_is_an_invalid_payment_method(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    token = fake.add_card()
    gateway.charge(SANDBOX, card(usd("10.00"), token=token, key="first"))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token=token, key="second"))

    assert token not in str(caught.value)


# --- credentials, modes, outages ----------------------------------------------------------


def test_bad_credentials_are_rejected_without_echoing_the_key(gateway: StripeGateway) -> None:
    wrong = GatewayCredentials(api_secret="sk_test_not_a_real_key_1234", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(wrong, card(usd("10.00")))

    assert "sk_test_not_a_real_key_1234" not in str(caught.value)
    assert "1234" not in str(caught.value)


def test_sandbox_and_live_use_the_same_host_and_the_key_decides(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    test = gateway.charge(SANDBOX, card(usd("10.00"), key="test"))
    live = gateway.charge(LIVE, card(usd("10.00"), key="live"))

    assert [str(r.url) for r in fake.requests] == [f"{API_BASE}/payment_intents"] * 2
    assert fake.payment_intents[test.reference]["livemode"] is False
    assert fake.payment_intents[live.reference]["livemode"] is True
    with pytest.raises(GatewayError, match="no object"):
        gateway.status(LIVE, test.reference)


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials(api_secret=LIVE_KEY, sandbox=True),
        GatewayCredentials(api_secret=TEST_KEY, sandbox=False),
        GatewayCredentials(api_secret="pk_test_publishable", sandbox=True),
    ],
)
def test_a_key_of_the_wrong_mode_never_reaches_stripe(
    gateway: StripeGateway, fake: FakeStripe, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(creds, card(usd("10.00")))

    assert fake.requests == []
    assert creds.api_secret not in str(caught.value)


def test_server_error_is_gateway_unavailable(gateway: StripeGateway, fake: FakeStripe) -> None:
    fake.fail_next(500)

    with pytest.raises(GatewayUnavailable) as caught:
        gateway.charge(SANDBOX, card(usd("10.00")))

    assert caught.value.retry_safe is True


def test_rate_limit_is_gateway_unavailable(gateway: StripeGateway, fake: FakeStripe) -> None:
    fake.fail_next(429)

    with pytest.raises(GatewayUnavailable, match="slow down"):
        gateway.charge(SANDBOX, card(usd("10.00")))


# --- idempotency --------------------------------------------------------------------------


def test_every_post_carries_the_idempotency_key(gateway: StripeGateway, fake: FakeStripe) -> None:
    auth = gateway.charge(SANDBOX, card(usd("10.00"), capture=False, key="k-charge"))
    gateway.capture(SANDBOX, auth.reference, usd("10.00"), "k-capture")
    gateway.refund(SANDBOX, auth.reference, usd("1.00"), "k-refund")

    posts = [r for r in fake.requests if r.method == "POST"]
    assert [r.headers["Idempotency-Key"] for r in posts] == ["k-charge", "k-capture", "k-refund"]


def test_a_retried_charge_is_replayed_by_stripe(gateway: StripeGateway, fake: FakeStripe) -> None:
    first = gateway.charge(SANDBOX, card(usd("10.00"), key="same-key"))
    again = gateway.charge(SANDBOX, card(usd("10.00"), key="same-key"))

    assert again.reference == first.reference
    assert again.support.get("idempotent_replayed") == "true"
    assert len(fake.payment_intents) == 1


def test_a_key_reused_for_another_request_is_refused(gateway: StripeGateway) -> None:
    gateway.charge(SANDBOX, card(usd("10.00"), key="same-key"))

    with pytest.raises(GatewayError, match="idempotency key") as caught:
        gateway.charge(SANDBOX, card(usd("11.00"), key="same-key"))

    assert caught.value.retry_safe is False


# --- the vault ----------------------------------------------------------------------------


def save_request(
    method_type: MethodType = MethodType.CARD,
    token: str = "pm_card_visa",
    customer_ref: str | None = None,
    key: str = "save-1",
) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=method_type,
        token=token,
        customer_id="cus-payhub-7",
        gateway_customer_ref=customer_ref,
        email="ada@example.com",
        name="Ada Lovelace",
        idempotency_key=key,
    )


def test_save_card_creates_the_customer_and_attaches(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())

    customer = fake.customers[saved.gateway_customer_ref]
    assert customer["metadata"] == {"payhub_customer_id": "cus-payhub-7"}
    assert customer["email"] == "ada@example.com"
    assert saved.method_ref.startswith("pm_")
    assert saved.method_ref != "pm_card_visa"  # Stripe clones test tokens; we keep its id
    assert fake.payment_methods[saved.method_ref]["customer"] == saved.gateway_customer_ref
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == (
        "visa",
        "4242",
        12,
        2034,
    )
    assert saved.bank_name is None
    keys = [r.headers["Idempotency-Key"] for r in fake.requests]
    assert keys == ["save-1-customer", "save-1-attach"]


def test_save_card_for_an_existing_customer_skips_creation(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    first = gateway.save_payment_method(SANDBOX, save_request())

    second = gateway.save_payment_method(
        SANDBOX,
        save_request(MethodType.CARD, "pm_card_mastercard", first.gateway_customer_ref, "save-2"),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.brand == "mastercard"
    assert len(fake.customers) == 1
    assert [r.url.path for r in fake.requests][
        -1
    ] == "/v1/payment_methods/pm_card_mastercard/attach"


def test_charge_a_saved_card_off_session(gateway: StripeGateway, fake: FakeStripe) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(SANDBOX, ChargeRequest(usd("25.00"), source, True, "saved-1"))

    assert result.status is GatewayStatus.CAPTURED
    sent = form(fake.posts("/v1/payment_intents")[0])
    assert sent["payment_method"] == saved.method_ref
    assert sent["customer"] == saved.gateway_customer_ref
    assert sent["off_session"] == "true"
    assert "error_on_requires_action" not in sent


def test_a_saved_method_needs_its_customer(gateway: StripeGateway) -> None:
    source = PaymentSource(MethodType.CARD, saved_method_ref="pm_saved")
    with pytest.raises(ValueError, match="customer"):
        gateway.charge(SANDBOX, ChargeRequest(usd("25.00"), source, True, "saved-1"))


def test_saving_a_declined_card_is_declined(gateway: StripeGateway) -> None:
    with pytest.raises(Declined) as caught:
        gateway.save_payment_method(SANDBOX, save_request(token="pm_card_visa_chargeDeclined"))

    assert caught.value.decline_code == "generic_decline"


def test_saving_an_unknown_token_is_an_invalid_payment_method(gateway: StripeGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(SANDBOX, save_request(token="pm_nope_123"))

    assert "pm_nope_123" not in str(caught.value)
    assert "pm_nope_123" not in (caught.value.gateway_message or "")


def test_save_bank_account_through_a_setup_intent(gateway: StripeGateway, fake: FakeStripe) -> None:
    saved = gateway.save_payment_method(
        SANDBOX, save_request(MethodType.BANK_ACCOUNT, "pm_usBankAccount_success")
    )

    assert saved.method_type is MethodType.BANK_ACCOUNT
    assert (saved.bank_name, saved.last4, saved.brand, saved.exp_month) == (
        "STRIPE TEST BANK",
        "6789",
        None,
        None,
    )
    sent = form(fake.posts("/v1/setup_intents")[0])
    assert sent["payment_method_types[]"] == "us_bank_account"
    assert sent["usage"] == "off_session"
    assert sent["confirm"] == "true"
    assert sent["mandate_data[customer_acceptance][type]"] == "offline"
    assert fake.mandates[saved.method_ref]["type"] == "multi_use"


def test_debit_a_saved_bank_account(gateway: StripeGateway, fake: FakeStripe) -> None:
    saved = gateway.save_payment_method(
        SANDBOX, save_request(MethodType.BANK_ACCOUNT, "pm_usBankAccount_success")
    )
    source = PaymentSource(
        MethodType.BANK_ACCOUNT,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(SANDBOX, ChargeRequest(usd("80.00"), source, True, "ach-saved"))

    assert result.status is GatewayStatus.SUBMITTED
    sent = form(fake.posts("/v1/payment_intents")[0])
    assert sent["payment_method_types[]"] == "us_bank_account"
    assert sent["off_session"] == "true"
    assert not any(name.startswith("mandate_data") for name in sent)  # the saved mandate serves


def test_an_unverified_bank_account_is_not_saved(gateway: StripeGateway, fake: FakeStripe) -> None:
    with pytest.raises(PaymentMethodInvalid, match="not verified"):
        gateway.save_payment_method(
            SANDBOX, save_request(MethodType.BANK_ACCOUNT, "pm_fake_usBankAccount_unverified")
        )

    [setup] = fake.setup_intents.values()
    assert setup["status"] == "canceled"


# --- ACH ----------------------------------------------------------------------------------


def test_ach_debit_is_submitted_with_a_mandate(gateway: StripeGateway, fake: FakeStripe) -> None:
    result = gateway.charge(SANDBOX, bank(usd("120.00")))

    assert result.status is GatewayStatus.SUBMITTED
    assert result.amount == usd("120.00")
    sent = form(fake.posts("/v1/payment_intents")[0])
    assert sent["payment_method_types[]"] == "us_bank_account"
    assert sent["capture_method"] == "automatic"
    assert sent["mandate_data[customer_acceptance][type]"] == "offline"
    assert "error_on_requires_action" not in sent
    assert gateway.status(SANDBOX, result.reference).status is GatewayStatus.SUBMITTED


def test_ach_accepted_on_the_pay_page_is_sent_as_online_acceptance(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    """The payer's acceptance on the pay page (time, address, browser) becomes Stripe's
    ``online`` mandate acceptance; without an address or browser it stays ``offline``."""
    at = datetime(2026, 1, 5, 15, 30, tzinfo=UTC)
    accepted = DebitAuthorization("I authorize Acme Plumbing ...", at, "203.0.113.9", "Mozilla/5.0")
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="pm_usBankAccount_success",
                           authorization=accepted)  # fmt: skip
    result = gateway.charge(SANDBOX, ChargeRequest(usd("120.00"), source, True, "ach-online"))
    assert result.status is GatewayStatus.SUBMITTED
    sent = form(fake.posts("/v1/payment_intents")[0])
    assert sent["mandate_data[customer_acceptance][type]"] == "online"
    assert sent["mandate_data[customer_acceptance][accepted_at]"] == str(int(at.timestamp()))
    assert sent["mandate_data[customer_acceptance][online][ip_address]"] == "203.0.113.9"
    assert sent["mandate_data[customer_acceptance][online][user_agent]"] == "Mozilla/5.0"
    assert fake.violations == []  # the stripe package's params accept it
    no_address = attrs.evolve(accepted, ip_address=None)
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="pm_usBankAccount_success",
                           authorization=no_address)  # fmt: skip
    gateway.charge(SANDBOX, ChargeRequest(usd("10.00"), source, True, "ach-offline"))
    sent = form(fake.posts("/v1/payment_intents")[1])
    assert sent["mandate_data[customer_acceptance][type]"] == "offline"
    assert not any("[online]" in name for name in sent)


def test_ach_with_an_unverified_account_is_cancelled(
    gateway: StripeGateway, fake: FakeStripe
) -> None:
    with pytest.raises(PaymentMethodInvalid, match="not verified"):
        gateway.charge(SANDBOX, bank(usd("120.00"), "pm_fake_usBankAccount_unverified"))

    [intent] = fake.payment_intents.values()
    assert intent["status"] == "canceled"
    cancel = fake.posts(f"/v1/payment_intents/{intent['id']}/cancel")[0]
    assert cancel.headers["Idempotency-Key"] == "ach-1-cancel"


def test_ach_cannot_be_authorized_only(gateway: StripeGateway, fake: FakeStripe) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="pm_usBankAccount_success")
    with pytest.raises(ValueError, match="authorize"):
        gateway.charge(SANDBOX, ChargeRequest(usd("5.00"), source, False, "ach-auth"))
    assert fake.requests == []


def test_ach_only_in_dollars(gateway: StripeGateway) -> None:
    with pytest.raises(ValidationError):
        gateway.charge(SANDBOX, bank(Money.of(Decimal("5.00"), "EUR")))


# --- the wire format ----------------------------------------------------------------------


def test_form_pairs_use_bracket_notation() -> None:
    pairs = form_pairs(
        {
            "amount": 1005,
            "confirm": True,
            "off_session": False,
            "payment_method_types": ["card"],
            "mandate_data": {"customer_acceptance": {"type": "offline"}},
            "description": None,
        }
    )

    assert pairs == [
        ("amount", "1005"),
        ("confirm", "true"),
        ("off_session", "false"),
        ("payment_method_types[]", "card"),
        ("mandate_data[customer_acceptance][type]", "offline"),
    ]


def test_ids_in_paths_are_quoted(gateway: StripeGateway, fake: FakeStripe) -> None:
    with pytest.raises(GatewayError):
        gateway.status(SANDBOX, "pi_x/../../customers")

    path = fake.requests[0].url.raw_path.split(b"?")[0]
    assert path == b"/v1/payment_intents/pi_x%2F..%2F..%2Fcustomers"
