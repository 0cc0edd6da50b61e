"""The Authorize.Net adapter against an in-memory fake of its API
(its fake.py beside this file)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.authorize_net.adapter import (
    DUPLICATE_WINDOW_SECONDS,
    LIVE_URL,
    SANDBOX_URL,
    AuthorizeNetGateway,
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
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SavedMethod,
    SaveMethodRequest,
)
from tests.gateways.authorize_net.fake import (
    BOM,
    FAKE_LOGIN,
    FAKE_TRANSACTION_KEY,
    FakeAuthorizeNet,
)
from tests.gateways.support import usd

SANDBOX = GatewayCredentials(FAKE_TRANSACTION_KEY, sandbox=True, fields={"apiLoginId": FAKE_LOGIN})
LIVE = GatewayCredentials(FAKE_TRANSACTION_KEY, sandbox=False, fields={"apiLoginId": FAKE_LOGIN})
CUSTOMER = "cus_abcdefghijklmnopqrstuvwxyz"  # payhub ids are 30 characters


@pytest.fixture
def fake() -> FakeAuthorizeNet:
    return FakeAuthorizeNet()


def _gateway(fake: FakeAuthorizeNet) -> Iterator[AuthorizeNetGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield AuthorizeNetGateway(client)


@pytest.fixture
def gateway(fake: FakeAuthorizeNet) -> Iterator[AuthorizeNetGateway]:
    yield from _gateway(fake)


def charge_request(
    amount: Money,
    token: str | None = "tok_visa",
    *,
    capture: bool = True,
    key: str = "idem-key-0001",
    method_type: MethodType = MethodType.CARD,
    saved: SavedMethod | None = None,
    description: str | None = None,
) -> ChargeRequest:
    if saved is not None:
        source = PaymentSource(
            saved.method_type,
            saved_method_ref=saved.method_ref,
            gateway_customer_ref=saved.gateway_customer_ref,
        )
    else:
        source = PaymentSource(method_type, token=token)
    return ChargeRequest(amount, source, capture, key, description)


def save_request(
    token: str = "tok_visa",
    method_type: MethodType = MethodType.CARD,
    customer_ref: str | None = None,
) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type, token, CUSTOMER, customer_ref, email="ada@example.com", name="Ada Lovelace"
    )


def wire(fake: FakeAuthorizeNet, index: int = -1) -> dict[str, Any]:
    """The root element of a request the fake received, as sent."""
    body = fake.calls[index]
    return dict(next(iter(body.values())))


def transaction_request(fake: FakeAuthorizeNet, index: int = -1) -> dict[str, Any]:
    return dict(wire(fake, index)["transactionRequest"])


# --- sale, authorization, capture -------------------------------------------------------


def test_a_sale_sends_the_documented_request_and_is_captured(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    result = gateway.charge(SANDBOX, charge_request(usd("10.05"), description="Order 42"))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert result.reference in fake.transactions
    assert result.message == "This transaction has been approved."
    assert result.support["response_code"] == "1"
    assert result.support["auth_code"]
    request = fake.requests[-1]
    assert str(request.url) == SANDBOX_URL
    assert request.headers["content-type"].startswith("application/json")
    body = wire(fake)
    assert list(body) == ["merchantAuthentication", "refId", "transactionRequest"]
    assert body["merchantAuthentication"] == {
        "name": FAKE_LOGIN,
        "transactionKey": FAKE_TRANSACTION_KEY,
    }
    tx = transaction_request(fake)
    assert list(tx) == [
        "transactionType",
        "amount",
        "currencyCode",
        "payment",
        "order",
        "transactionSettings",
    ]
    assert tx["transactionType"] == "authCaptureTransaction"
    assert tx["amount"] == "10.05"
    assert tx["currencyCode"] == "USD"
    assert tx["payment"] == {
        "opaqueData": {"dataDescriptor": "COMMON.ACCEPT.INAPP.PAYMENT", "dataValue": "tok_visa"}
    }
    assert tx["order"]["description"] == "Order 42"


def test_amounts_go_out_exact_and_come_back_exact(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    result = gateway.charge(SANDBOX, charge_request(usd("10.05")))

    stored = fake.transactions[result.reference].settle_amount
    assert stored == Decimal("10.05")
    assert Money.of(stored, "USD").minor_units == 1005
    assert gateway.status(SANDBOX, result.reference).amount == usd("10.05")

    yen = Money.of(Decimal("1000"), "JPY")
    gateway.charge(SANDBOX, charge_request(yen, "tok_visa_2", key="idem-key-yen"))
    assert transaction_request(fake)["amount"] == "1000"
    assert transaction_request(fake)["currencyCode"] == "JPY"


def test_authorize_then_capture_in_full(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("25.00"), capture=False))
    assert authorized.status is GatewayStatus.AUTHORIZED
    assert transaction_request(fake)["transactionType"] == "authOnlyTransaction"

    captured = gateway.capture(SANDBOX, authorized.reference, usd("25.00"), "idem-capture-1")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.reference == authorized.reference
    assert captured.amount == usd("25.00")
    assert transaction_request(fake) == {
        "transactionType": "priorAuthCaptureTransaction",
        "amount": "25.00",
        "refTransId": authorized.reference,
    }
    assert fake.transactions[authorized.reference].status == "capturedPendingSettlement"


def test_authorize_then_capture_part(gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("25.00"), capture=False))

    captured = gateway.capture(SANDBOX, authorized.reference, usd("19.99"), "idem-capture-1")

    assert captured.amount == usd("19.99")
    status = gateway.status(SANDBOX, authorized.reference)
    assert status.status is GatewayStatus.CAPTURED
    assert status.amount == usd("19.99")


def test_capturing_more_than_authorized_is_refused(gateway: AuthorizeNetGateway) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("5.00"), capture=False))

    with pytest.raises(Declined) as caught:
        gateway.capture(SANDBOX, authorized.reference, usd("6.00"), "idem-capture-1")

    assert "greater than the original amount" in (caught.value.gateway_message or "")


def test_a_retried_capture_reports_what_was_captured(gateway: AuthorizeNetGateway) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("25.00"), capture=False))
    gateway.capture(SANDBOX, authorized.reference, usd("20.00"), "idem-capture-1")

    again = gateway.capture(SANDBOX, authorized.reference, usd("20.00"), "idem-capture-1")

    assert again.status is GatewayStatus.CAPTURED
    assert again.amount == usd("20.00")


# --- refund and void --------------------------------------------------------------------


def test_a_full_refund_after_settlement(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    sale = gateway.charge(SANDBOX, charge_request(usd("30.00")))
    fake.settle()

    refund = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "idem-refund-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert refund.amount == usd("30.00")
    assert refund.reference != sale.reference
    assert fake.roots()[-2:] == ["getTransactionDetailsRequest", "createTransactionRequest"]
    tx = transaction_request(fake)
    assert list(tx) == [
        "transactionType",
        "amount",
        "payment",
        "refTransId",
        "order",
        "transactionSettings",
    ]
    assert tx["payment"] == {"creditCard": {"cardNumber": "1111", "expirationDate": "XXXX"}}
    assert tx["refTransId"] == sale.reference
    assert fake.transactions[refund.reference].type == "refundTransaction"


def test_a_partial_refund_after_settlement(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    sale = gateway.charge(SANDBOX, charge_request(usd("30.00")))
    fake.settle()

    first = gateway.refund(SANDBOX, sale.reference, usd("10.00"), "idem-refund-1")
    second = gateway.refund(SANDBOX, sale.reference, usd("10.00"), "idem-refund-2")

    assert first.reference != second.reference
    assert transaction_request(fake)["amount"] == "10.00"
    assert fake.transactions[sale.reference].refunded == Decimal("20.00")
    assert gateway.status(SANDBOX, second.reference).status is GatewayStatus.REFUNDED


def test_a_full_refund_before_settlement_voids(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    sale = gateway.charge(SANDBOX, charge_request(usd("30.00")))

    refund = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "idem-refund-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert refund.support["refunded_by"] == "void"
    assert transaction_request(fake)["transactionType"] == "voidTransaction"
    assert fake.transactions[sale.reference].status == "voided"


def test_a_partial_refund_before_settlement_is_refused(gateway: AuthorizeNetGateway) -> None:
    sale = gateway.charge(SANDBOX, charge_request(usd("30.00")))

    with pytest.raises(Declined) as caught:
        gateway.refund(SANDBOX, sale.reference, usd("5.00"), "idem-refund-1")

    assert caught.value.decline_code == "processing_error"
    assert "criteria for issuing a credit" in (caught.value.gateway_message or "")


def test_void_an_authorization(gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("12.00"), capture=False))

    voided = gateway.void(SANDBOX, authorized.reference, "idem-void-1")

    assert voided.status is GatewayStatus.VOIDED
    assert voided.reference == authorized.reference
    assert transaction_request(fake) == {
        "transactionType": "voidTransaction",
        "refTransId": authorized.reference,
    }
    assert wire(fake)["refId"] == "idem-void-1"
    assert gateway.status(SANDBOX, authorized.reference).status is GatewayStatus.VOIDED


def test_voiding_twice_is_harmless(gateway: AuthorizeNetGateway) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("12.00"), capture=False))
    gateway.void(SANDBOX, authorized.reference, "idem-void-1")

    again = gateway.void(SANDBOX, authorized.reference, "idem-void-1")

    assert again.status is GatewayStatus.VOIDED
    assert again.support["already_voided"] == "true"


def test_a_follow_up_on_an_unknown_transaction_fails(gateway: AuthorizeNetGateway) -> None:
    with pytest.raises(GatewayError, match="cannot find"):
        gateway.void(SANDBOX, "49999999999", "idem-void-1")
    with pytest.raises(GatewayError, match="no transaction 49999999999"):
        gateway.status(SANDBOX, "49999999999")


# --- status -----------------------------------------------------------------------------


def test_status_follows_the_transaction(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    authorized = gateway.charge(SANDBOX, charge_request(usd("40.00"), capture=False))
    reference = authorized.reference

    first = gateway.status(SANDBOX, reference)
    assert (first.status, first.amount) == (GatewayStatus.AUTHORIZED, usd("40.00"))
    assert first.support["transaction_status"] == "authorizedPendingCapture"
    assert wire(fake) == {
        "merchantAuthentication": {"name": FAKE_LOGIN, "transactionKey": FAKE_TRANSACTION_KEY},
        "transId": reference,
    }

    gateway.capture(SANDBOX, reference, usd("40.00"), "idem-capture-1")
    fake.settle()
    settled = gateway.status(SANDBOX, reference)
    assert (settled.status, settled.amount) == (GatewayStatus.CAPTURED, usd("40.00"))
    assert settled.support["transaction_status"] == "settledSuccessfully"


def test_status_of_a_declined_charge_carries_the_decline(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, charge_request(usd("9.00"), "tok_decline"))
    reference = caught.value.gateway_request_id
    assert reference in fake.transactions

    status = gateway.status(SANDBOX, reference or "")

    assert status.status is GatewayStatus.DECLINED
    assert status.decline_code == "generic_decline"


def test_status_amounts_use_the_credential_currency(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    sale = gateway.charge(SANDBOX, charge_request(Money.of(Decimal("12.50"), "CAD")))
    cad = GatewayCredentials(
        FAKE_TRANSACTION_KEY, sandbox=True, fields={"apiLoginId": FAKE_LOGIN, "currency": "CAD"}
    )

    assert gateway.status(cad, sale.reference).amount == Money.of(Decimal("12.50"), "CAD")


# --- ACH (eCheck) -----------------------------------------------------------------------


def test_an_ach_debit_is_submitted_and_refunds_to_the_account(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    debit = gateway.charge(
        SANDBOX, charge_request(usd("75.00"), "tok_bank", method_type=MethodType.BANK_ACCOUNT)
    )

    assert debit.status is GatewayStatus.SUBMITTED
    assert transaction_request(fake)["payment"]["opaqueData"]["dataValue"] == "tok_bank"
    assert gateway.status(SANDBOX, debit.reference).status is GatewayStatus.SUBMITTED

    fake.settle()
    refund = gateway.refund(SANDBOX, debit.reference, usd("25.00"), "idem-refund-1")

    assert refund.status is GatewayStatus.REFUNDED
    assert transaction_request(fake)["payment"] == {
        "bankAccount": {
            "accountType": "checking",
            "routingNumber": "XXXX0024",
            "accountNumber": "XXXX1234",
            "nameOnAccount": "Jane Doe",
        }
    }


def test_an_ach_debit_cannot_be_authorized_only(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    request = charge_request(
        usd("75.00"), "tok_bank", capture=False, method_type=MethodType.BANK_ACCOUNT
    )

    with pytest.raises(ValueError, match="authorized only"):
        gateway.charge(SANDBOX, request)
    assert fake.requests == []


# --- vault (CIM) ------------------------------------------------------------------------


def test_save_a_card_creates_the_customer_profile(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())

    assert saved.gateway_customer_ref in fake.profiles
    customer, method = saved.method_ref.split("/")
    assert customer == saved.gateway_customer_ref
    assert method in fake.profiles[customer].payment_profiles
    assert (saved.method_type, saved.brand, saved.last4) == (MethodType.CARD, "visa", "1111")
    assert (saved.exp_month, saved.exp_year, saved.bank_name) == (12, 2032, None)
    assert fake.roots() == [
        "createCustomerProfileRequest",
        "createCustomerPaymentProfileRequest",
        "getCustomerPaymentProfileRequest",
    ]
    assert wire(fake, 0)["profile"] == {
        "merchantCustomerId": CUSTOMER[:20],
        "description": "Ada Lovelace",
        "email": "ada@example.com",
    }
    payment_profile = wire(fake, 1)
    assert payment_profile["customerProfileId"] == customer
    assert payment_profile["paymentProfile"]["payment"] == {
        "opaqueData": {"dataDescriptor": "COMMON.ACCEPT.INAPP.PAYMENT", "dataValue": "tok_visa"}
    }
    assert payment_profile["validationMode"] == "testMode"


def test_save_for_an_existing_customer_skips_the_profile(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    first = gateway.save_payment_method(SANDBOX, save_request())

    second = gateway.save_payment_method(
        SANDBOX, save_request("tok_mastercard", customer_ref=first.gateway_customer_ref)
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref
    assert (second.brand, second.last4, second.exp_month, second.exp_year) == (
        "mastercard",
        "0015",
        8,
        2031,
    )
    assert fake.roots().count("createCustomerProfileRequest") == 1


def test_saving_again_reuses_the_duplicate_profiles(gateway: AuthorizeNetGateway) -> None:
    first = gateway.save_payment_method(SANDBOX, save_request("tok_visa_1"))

    again = gateway.save_payment_method(SANDBOX, save_request("tok_visa_2"))

    assert again.gateway_customer_ref == first.gateway_customer_ref
    assert again.method_ref == first.method_ref


def test_save_a_bank_account(gateway: AuthorizeNetGateway) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request("tok_bank", MethodType.BANK_ACCOUNT))

    assert saved.method_type is MethodType.BANK_ACCOUNT
    assert (saved.last4, saved.bank_name, saved.brand, saved.exp_month) == (
        "1234",
        "Wells Fargo Bank NA",
        None,
        None,
    )


def test_save_a_card_token_as_a_bank_account_is_refused(gateway: AuthorizeNetGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(SANDBOX, save_request("tok_visa", MethodType.BANK_ACCOUNT))


def test_live_saves_validate_the_card_and_map_a_decline() -> None:
    fake = FakeAuthorizeNet(live=True)
    for gateway in _gateway(fake):
        with pytest.raises(Declined) as caught:
            gateway.save_payment_method(LIVE, save_request("tok_cvv"))

    assert wire(fake)["validationMode"] == "liveMode"
    assert caught.value.decline_code == "incorrect_cvc"
    assert caught.value.gateway_message == "This transaction has been declined."


def test_charge_a_saved_card(gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())

    result = gateway.charge(SANDBOX, charge_request(usd("15.00"), saved=saved))

    assert result.status is GatewayStatus.CAPTURED
    customer, method = saved.method_ref.split("/")
    assert transaction_request(fake)["profile"] == {
        "customerProfileId": customer,
        "paymentProfile": {"paymentProfileId": method},
    }
    assert fake.transactions[result.reference].method.last4 == "1111"


def test_charge_a_saved_bank_account(gateway: AuthorizeNetGateway) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request("tok_bank", MethodType.BANK_ACCOUNT))

    result = gateway.charge(SANDBOX, charge_request(usd("15.00"), saved=saved))

    assert result.status is GatewayStatus.SUBMITTED


def test_a_bare_payment_profile_id_works_with_the_customer_ref(
    gateway: AuthorizeNetGateway,
) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref.split("/")[1],
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(SANDBOX, ChargeRequest(usd("1.00"), source, True, "idem-key-bare"))

    assert result.status is GatewayStatus.CAPTURED


def test_an_unknown_saved_method_is_invalid(gateway: AuthorizeNetGateway) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())
    gone = SavedMethod(
        saved.gateway_customer_ref, saved.gateway_customer_ref + "/999", saved.method_type
    )

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, charge_request(usd("1.00"), saved=gone))
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, charge_request(usd("1.00"), saved=saved_ref("not-a-ref")))


def saved_ref(ref: str) -> SavedMethod:
    return SavedMethod("500000001", ref, MethodType.CARD)


# --- declines and failures --------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "code", "message"),
    [
        ("tok_decline", "generic_decline", "This transaction has been declined."),
        ("tok_expired", "expired_card", "The credit card has expired."),
        ("tok_cvv", "incorrect_cvc", "This transaction has been declined."),
        ("tok_fraud", "fraudulent", "Fraud Detection Suite filter"),
        ("tok_processing", "processing_error", "Please try again in 5 minutes."),
    ],
)
def test_declines_carry_a_normalised_code(
    gateway: AuthorizeNetGateway, token: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, charge_request(usd("9.00"), token))

    assert caught.value.decline_code == code
    assert message in (caught.value.gateway_message or "")
    assert caught.value.gateway == "authorize-net"


def test_a_charge_held_for_review_is_pending(gateway: AuthorizeNetGateway) -> None:
    result = gateway.charge(SANDBOX, charge_request(usd("9.00"), "tok_review"))

    assert result.status is GatewayStatus.PENDING
    assert gateway.status(SANDBOX, result.reference).status is GatewayStatus.PENDING


@pytest.mark.parametrize("token", ["tok_unknown", "COMMON.OTHER.INAPP.PAYMENT;tok_visa", "  "])
def test_an_invalid_token_is_refused(gateway: AuthorizeNetGateway, token: str) -> None:
    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, charge_request(usd("9.00"), token))


def test_a_used_token_is_refused(gateway: AuthorizeNetGateway) -> None:
    gateway.charge(SANDBOX, charge_request(usd("9.00"), "tok_visa", key="idem-key-a"))

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, charge_request(usd("3.00"), "tok_visa", key="idem-key-b"))
    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(SANDBOX, save_request("tok_visa"))


def test_an_explicit_descriptor_is_sent(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    with pytest.raises(PaymentMethodInvalid):  # the fake only knows Accept.js tokens
        gateway.charge(SANDBOX, charge_request(usd("9.00"), "COMMON.APPLE.INAPP.PAYMENT;abc"))

    opaque = transaction_request(fake)["payment"]["opaqueData"]
    assert opaque == {"dataDescriptor": "COMMON.APPLE.INAPP.PAYMENT", "dataValue": "abc"}


@pytest.mark.parametrize(
    "creds",
    [
        GatewayCredentials("WrongKey12345678", sandbox=True, fields={"apiLoginId": FAKE_LOGIN}),
        GatewayCredentials(FAKE_TRANSACTION_KEY, sandbox=True, fields={"apiLoginId": "nobody"}),
        LIVE,  # sandbox credentials do not exist on the live host
    ],
)
def test_bad_credentials_are_rejected(
    gateway: AuthorizeNetGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(creds, charge_request(usd("9.00")))
    assert FAKE_TRANSACTION_KEY not in str(caught.value)


def test_missing_login_is_rejected_without_a_call(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.status(GatewayCredentials(FAKE_TRANSACTION_KEY, sandbox=True), "40000000001")
    assert fake.requests == []


def test_live_credentials_go_to_the_live_host() -> None:
    fake = FakeAuthorizeNet(live=True)
    for gateway in _gateway(fake):
        result = gateway.charge(LIVE, charge_request(usd("9.00")))

    assert result.status is GatewayStatus.CAPTURED
    assert str(fake.requests[-1].url) == LIVE_URL
    assert LIVE_URL == "https://api.authorize.net/xml/v1/request.api"
    assert SANDBOX_URL == "https://apitest.authorize.net/xml/v1/request.api"


def test_a_server_error_is_unavailable(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    fake.outage = 500

    with pytest.raises(GatewayUnavailable):
        gateway.charge(SANDBOX, charge_request(usd("9.00")))


def test_a_timeout_is_reported(gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet) -> None:
    fake.timeout = True

    with pytest.raises(GatewayTimeout):
        gateway.charge(SANDBOX, charge_request(usd("9.00")))


def test_an_unreadable_answer_is_an_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=BOM.encode() + b"<html>proxy</html>")

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        gateway = AuthorizeNetGateway(client)
        with pytest.raises(GatewayError, match=r"Authorize\.Net answered in an unexpected shape"):
            gateway.status(SANDBOX, "40000000001")


@pytest.mark.parametrize(
    "token",
    # the fake's schema error quotes the value back, as the real API's parser errors do
    ["tok secret-token-value", "COMMON.ACCEPT.INAPP.PAYMENT;tok secret-token-value"],
)
def test_no_secret_or_token_leaks_into_errors(gateway: AuthorizeNetGateway, token: str) -> None:
    with pytest.raises(GatewayError) as caught:
        gateway.charge(SANDBOX, charge_request(usd("9.00"), token))

    for text in (str(caught.value), caught.value.gateway_message or ""):
        assert "secret-token-value" not in text
        assert FAKE_TRANSACTION_KEY not in text
    assert "[redacted]" in (caught.value.gateway_message or "")
    with pytest.raises(Declined) as declined:
        gateway.charge(SANDBOX, charge_request(usd("9.00"), "tok_decline_xyz"))
    assert "tok_decline_xyz" not in str(declined.value)


# --- idempotency through the duplicate window --------------------------------------------


def test_the_idempotency_key_is_sent_as_ref_id_invoice_and_window(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    key = "charge-2026-01-15-order-000042-attempt-1"

    gateway.charge(SANDBOX, charge_request(usd("9.00"), key=key))

    body = wire(fake)
    assert body["refId"] == key[:20]
    tx = body["transactionRequest"]
    assert tx["order"]["invoiceNumber"] == hashlib.sha256(key.encode()).hexdigest()[:20]
    assert tx["transactionSettings"] == {
        "setting": {"settingName": "duplicateWindow", "settingValue": str(DUPLICATE_WINDOW_SECONDS)}
    }


def test_a_retried_charge_returns_the_original(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    saved = gateway.save_payment_method(SANDBOX, save_request())
    first = gateway.charge(SANDBOX, charge_request(usd("20.00"), saved=saved, key="idem-key-r"))
    fake.advance(3600)

    again = gateway.charge(SANDBOX, charge_request(usd("20.00"), saved=saved, key="idem-key-r"))

    assert again.reference == first.reference
    assert again.status is GatewayStatus.CAPTURED
    assert again.amount == usd("20.00")
    assert again.support["duplicate_of"] == first.reference
    assert sum(t.type == "authCaptureTransaction" for t in fake.transactions.values()) == 1

    other = gateway.charge(SANDBOX, charge_request(usd("20.00"), saved=saved, key="idem-key-s"))
    assert other.reference != first.reference


def test_a_retry_with_a_fresh_token_for_the_same_card_is_recognised(
    gateway: AuthorizeNetGateway,
) -> None:
    first = gateway.charge(SANDBOX, charge_request(usd("20.00"), "tok_visa_1", key="idem-key-t"))

    again = gateway.charge(SANDBOX, charge_request(usd("20.00"), "tok_visa_2", key="idem-key-t"))

    assert again.reference == first.reference


def test_a_retried_declined_charge_is_declined_again(gateway: AuthorizeNetGateway) -> None:
    with pytest.raises(Declined):
        gateway.charge(SANDBOX, charge_request(usd("20.00"), "tok_decline_1", key="idem-key-d"))

    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, charge_request(usd("20.00"), "tok_decline_2", key="idem-key-d"))

    assert caught.value.decline_code == "generic_decline"


def test_a_retried_refund_returns_the_original(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    sale = gateway.charge(SANDBOX, charge_request(usd("30.00")))
    fake.settle()
    first = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "idem-refund-1")

    again = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "idem-refund-1")

    assert again.reference == first.reference
    assert again.status is GatewayStatus.REFUNDED
    assert fake.transactions[sale.reference].refunded == Decimal("30.00")


def test_lookup_finds_a_charge_whose_answer_was_lost(
    gateway: AuthorizeNetGateway, fake: FakeAuthorizeNet
) -> None:
    request = charge_request(usd("20.00"), key="idem-key-lost")
    fake.lose_answer = True
    with pytest.raises(GatewayTimeout):
        gateway.charge(SANDBOX, request)
    fake.lose_answer = False

    found = gateway.lookup(SANDBOX, request)

    assert found is not None
    assert (found.status, found.amount) == (GatewayStatus.CAPTURED, usd("20.00"))
    assert found.reference in fake.transactions
    assert gateway.lookup(SANDBOX, charge_request(usd("20.00"), key="idem-key-never")) is None


# --- the fake itself --------------------------------------------------------------------


def test_the_fake_enforces_schema_order_and_the_bom(fake: FakeAuthorizeNet) -> None:
    body = {
        "getTransactionDetailsRequest": {
            "transId": "1",
            "merchantAuthentication": {"name": FAKE_LOGIN, "transactionKey": FAKE_TRANSACTION_KEY},
        }
    }
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        response = client.post(SANDBOX_URL, json=body)

    assert response.content.startswith(BOM.encode())
    answer = json.loads(response.content.decode("utf-8-sig"))
    assert answer["messages"]["resultCode"] == "Error"
    assert answer["messages"]["message"][0]["code"] == "E00003"
