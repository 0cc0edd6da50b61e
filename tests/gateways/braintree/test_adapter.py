"""The Braintree adapter against an in-memory fake of its GraphQL API
(its fake.py beside this file)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from payhub.adapters.gateways.braintree.adapter import (
    API_VERSION,
    LIVE_URL,
    SANDBOX_URL,
    BraintreeGateway,
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
    SaveMethodRequest,
)
from tests.gateways.braintree.fake import MERCHANT_ID, PRIVATE_KEY, PUBLIC_KEY, FakeBraintree
from tests.gateways.support import usd

SANDBOX = GatewayCredentials(
    api_secret=PRIVATE_KEY,
    sandbox=True,
    fields={"publicKey": PUBLIC_KEY, "merchantId": MERCHANT_ID},
)
LIVE = GatewayCredentials(
    api_secret=PRIVATE_KEY,
    sandbox=False,
    fields={"publicKey": PUBLIC_KEY, "merchantId": MERCHANT_ID},
)


@pytest.fixture
def fake() -> FakeBraintree:
    return FakeBraintree()


def _gateway(fake: FakeBraintree) -> Iterator[BraintreeGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield BraintreeGateway(client)


@pytest.fixture
def gateway(fake: FakeBraintree) -> Iterator[BraintreeGateway]:
    yield from _gateway(fake)


def card(
    amount: Money,
    token: str = "fake-valid-nonce",
    capture: bool = True,
    key: str = "txn_1:charge",
) -> ChargeRequest:
    return ChargeRequest(
        amount=amount,
        source=PaymentSource(MethodType.CARD, token=token),
        capture=capture,
        idempotency_key=key,
    )


def saved(
    amount: Money, method: str, customer: str, kind: MethodType, key: str = "txn_2:charge"
) -> ChargeRequest:
    return ChargeRequest(
        amount=amount,
        source=PaymentSource(kind, saved_method_ref=method, gateway_customer_ref=customer),
        capture=True,
        idempotency_key=key,
    )


def save_request(
    kind: MethodType, token: str, customer_ref: str | None = None
) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=kind,
        token=token,
        customer_id="cus_payhub_1",
        gateway_customer_ref=customer_ref,
        email="ada@example.com",
        name="Ada King Lovelace",
        idempotency_key="save-1",
    )


def last_input(fake: FakeBraintree, field: str) -> dict[str, Any]:
    return dict(fake.calls(field)[-1]["variables"]["input"])


# --- sale, authorize, capture ---------------------------------------------------------------


def test_a_sale_submits_for_settlement_and_sends_the_documented_request(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    result = gateway.charge(SANDBOX, card(usd("10.05")))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert fake.transactions[result.reference]["status"] == "SUBMITTED_FOR_SETTLEMENT"
    assert result.support["braintreeStatus"] == "SUBMITTED_FOR_SETTLEMENT"
    assert result.support["requestId"].startswith("fake-request-")
    sent = fake.requests[-1]
    assert str(sent.url) == SANDBOX_URL
    assert sent.headers["braintree-version"] == API_VERSION
    expected = base64.b64encode(f"{PUBLIC_KEY}:{PRIVATE_KEY}".encode()).decode()
    assert sent.headers["authorization"] == f"Basic {expected}"
    given = last_input(fake, "chargePaymentMethod")
    assert given["paymentMethodId"] == "fake-valid-nonce"
    assert given["transaction"] == {
        "amount": "10.05",
        "merchantAccountId": "fakemerchant_usd",
        "orderId": "txn_1:charge",
    }


def test_authorize_then_capture_in_full(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    auth = gateway.charge(SANDBOX, card(usd("25.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.calls("authorizePaymentMethod")

    captured = gateway.capture(SANDBOX, auth.reference, usd("25.00"), "txe_1:capture")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.reference == auth.reference
    assert captured.amount == usd("25.00")
    assert last_input(fake, "captureTransaction") == {
        "clientMutationId": "txe_1:capture",
        "transactionId": auth.reference,
        "transaction": {"amount": "25.00"},
    }


def test_authorize_then_capture_part(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    auth = gateway.charge(SANDBOX, card(usd("25.00"), capture=False))

    captured = gateway.capture(SANDBOX, auth.reference, usd("10.50"), "txe_1:capture")

    assert captured.status is GatewayStatus.CAPTURED
    assert captured.amount == usd("10.50")
    assert fake.transactions[auth.reference]["amount"] == {"value": "10.50", "currencyCode": "USD"}


def test_capturing_more_than_authorized_is_refused(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    auth = gateway.charge(SANDBOX, card(usd("5.00"), capture=False))

    with pytest.raises(GatewayError) as caught:
        gateway.capture(SANDBOX, auth.reference, usd("6.00"), "txe_1:capture")

    assert type(caught.value) is GatewayError
    assert "91522" in caught.value.detail


# --- refund, void, status -------------------------------------------------------------------


def test_refund_in_full_and_in_parts_after_settlement(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00")))
    fake.settle(sale.reference)

    part = gateway.refund(SANDBOX, sale.reference, usd("10.00"), "txe_1:refund")
    rest = gateway.refund(SANDBOX, sale.reference, usd("20.00"), "txe_2:refund")

    assert part.status is GatewayStatus.REFUNDED
    assert part.amount == usd("10.00")
    assert part.reference in fake.refunds
    assert rest.amount == usd("20.00")
    assert rest.reference != part.reference
    assert last_input(fake, "refundTransaction") == {
        "clientMutationId": "txe_2:refund",
        "transactionId": sale.reference,
        "refund": {"amount": "20.00", "orderId": "txe_2:refund"},
    }
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.REFUNDED


def test_refund_in_full_before_settlement_voids_the_sale(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00")))

    result = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "txe_1:refund")

    assert result.status is GatewayStatus.VOIDED
    assert fake.transactions[sale.reference]["status"] == "VOIDED"
    again = gateway.refund(SANDBOX, sale.reference, usd("30.00"), "txe_1:refund")  # a retry
    assert again.status is GatewayStatus.VOIDED
    assert not fake.calls("refundTransaction")


def test_refund_in_part_before_settlement_says_to_wait(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00")))

    with pytest.raises(GatewayError, match="settle"):
        gateway.refund(SANDBOX, sale.reference, usd("5.00"), "txe_1:refund")

    assert fake.transactions[sale.reference]["status"] == "SUBMITTED_FOR_SETTLEMENT"


def test_void_reverses_an_authorization(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    auth = gateway.charge(SANDBOX, card(usd("12.00"), capture=False))

    voided = gateway.void(SANDBOX, auth.reference, "txe_1:void")

    assert voided.status is GatewayStatus.VOIDED
    assert voided.reference == auth.reference
    assert fake.transactions[auth.reference]["status"] == "VOIDED"
    assert last_input(fake, "reverseTransaction") == {
        "clientMutationId": "txe_1:void",
        "transactionId": auth.reference,
    }


def test_status_follows_the_transaction(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    auth = gateway.charge(SANDBOX, card(usd("12.00"), capture=False))
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.AUTHORIZED

    gateway.capture(SANDBOX, auth.reference, usd("12.00"), "txe_1:capture")
    found = gateway.status(SANDBOX, auth.reference)

    assert found.status is GatewayStatus.CAPTURED
    assert found.amount == usd("12.00")
    assert fake.calls("node")[-1]["variables"] == {"id": auth.reference}


def test_status_of_an_unknown_reference(gateway: BraintreeGateway) -> None:
    with pytest.raises(GatewayError, match="no object"):
        gateway.status(SANDBOX, "dHJhbnNhY3Rpb25fbm9uZQ")


# --- vault and ACH -------------------------------------------------------------------------


def test_save_a_card_for_a_new_customer_then_charge_it(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    method = gateway.save_payment_method(SANDBOX, save_request(MethodType.CARD, "fake-valid-nonce"))

    assert method.gateway_customer_ref in fake.customers
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        "visa",
        "1111",
        12,
        2030,
    )
    assert method.bank_name is None
    assert last_input(fake, "createCustomer")["customer"] == {
        "email": "ada@example.com",
        "firstName": "Ada King",
        "lastName": "Lovelace",
    }
    assert last_input(fake, "vaultPaymentMethod") == {
        "clientMutationId": "save-1",
        "paymentMethodId": "fake-valid-nonce",
        "customerId": method.gateway_customer_ref,
    }

    result = gateway.charge(
        SANDBOX,
        saved(usd("9.99"), method.method_ref, method.gateway_customer_ref, MethodType.CARD),
    )

    assert result.status is GatewayStatus.CAPTURED
    assert last_input(fake, "chargePaymentMethod")["paymentMethodId"] == method.method_ref


def test_save_for_a_known_customer_does_not_create_another(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    first = gateway.save_payment_method(SANDBOX, save_request(MethodType.CARD, "fake-valid-nonce"))
    second = gateway.save_payment_method(
        SANDBOX,
        save_request(MethodType.CARD, "fake-valid-mastercard-nonce", first.gateway_customer_ref),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert (second.brand, second.last4) == ("mastercard", "4444")
    assert len(fake.calls("createCustomer")) == 1


def test_a_card_that_fails_verification_is_not_saved(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    with pytest.raises(Declined) as caught:
        gateway.save_payment_method(
            SANDBOX, save_request(MethodType.CARD, "fake-processor-declined-visa-nonce")
        )

    assert caught.value.decline_code == "generic_decline"
    assert caught.value.gateway_message == "Do Not Honor"
    assert not fake.methods


def test_save_a_bank_account_then_debit_it(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    method = gateway.save_payment_method(
        SANDBOX, save_request(MethodType.BANK_ACCOUNT, "fake-us-bank-account-nonce")
    )

    assert method.method_type is MethodType.BANK_ACCOUNT
    assert (method.bank_name, method.last4, method.brand) == ("FAKE BANK", "0000", None)
    vaulted = last_input(fake, "vaultUsBankAccount")
    assert vaulted["verificationMethod"] == "NETWORK_CHECK"
    assert vaulted["customerId"] == method.gateway_customer_ref

    debit = gateway.charge(
        SANDBOX,
        saved(
            usd("42.10"), method.method_ref, method.gateway_customer_ref, MethodType.BANK_ACCOUNT
        ),
    )

    assert debit.status is GatewayStatus.SUBMITTED
    assert debit.amount == usd("42.10")
    given = last_input(fake, "chargeUsBankAccount")
    assert given["options"] == {"standardEntryClassCode": "WEB"}
    assert given["paymentMethodId"] == method.method_ref


def test_a_bank_account_that_fails_verification_is_declined(gateway: BraintreeGateway) -> None:
    with pytest.raises(Declined) as caught:
        gateway.save_payment_method(
            SANDBOX,
            save_request(MethodType.BANK_ACCOUNT, "fake-us-bank-account-unverifiable-nonce"),
        )

    assert caught.value.decline_code == "generic_decline"


def test_a_fresh_bank_token_is_refused_before_any_request(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    request = ChargeRequest(
        amount=usd("10.00"),
        source=PaymentSource(MethodType.BANK_ACCOUNT, token="fake-us-bank-account-nonce"),
        capture=True,
        idempotency_key="txn_1:charge",
    )

    with pytest.raises(ValueError, match="vault"):
        gateway.charge(SANDBOX, request)

    assert fake.requests == []


def test_a_bank_debit_cannot_be_authorized_only(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    request = ChargeRequest(
        amount=usd("10.00"),
        source=PaymentSource(
            MethodType.BANK_ACCOUNT, saved_method_ref="pm", gateway_customer_ref="c"
        ),
        capture=False,
        idempotency_key="txn_1:charge",
    )

    with pytest.raises(ValueError, match="authorize"):
        gateway.charge(SANDBOX, request)

    assert fake.requests == []


# --- declines and failures -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "code", "message"),
    [
        ("2000.00", "generic_decline", "Do Not Honor"),
        ("2001.00", "insufficient_funds", "Insufficient Funds"),
        ("2004.00", "expired_card", "Expired Card"),
        ("2010.00", "incorrect_cvc", "Card Issuer Declined CVV"),
        ("2014.00", "fraudulent", "Processor Declined - Fraud Suspected"),
        ("3000.00", "processing_error", "Processor Network Unavailable - Try Again"),
    ],
)
def test_declines_carry_a_normalised_code_and_the_gateway_message(
    gateway: BraintreeGateway, amount: str, code: str, message: str
) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, card(usd(amount)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message == message
    assert caught.value.gateway_request_id
    assert code in str(caught.value)


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("fake-processor-declined-visa-nonce", "generic_decline"),
        ("fake-gateway-rejected-fraud-nonce", "fraudulent"),
    ],
)
def test_declines_from_the_sandbox_nonces(gateway: BraintreeGateway, token: str, code: str) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token=token))

    assert caught.value.decline_code == code
    assert token not in str(caught.value)


def test_a_declined_transaction_next_to_an_error_is_still_read_as_a_decline() -> None:
    declined = {
        "id": "dHJhbnNhY3Rpb25fZGVjbGluZWQ",
        "orderId": "txn_1:charge",
        "status": "PROCESSOR_DECLINED",
        "amount": {"value": "10.00", "currencyCode": "USD"},
        "statusHistory": [
            {
                "__typename": "ProcessorDeclinedEvent",
                "status": "PROCESSOR_DECLINED",
                "processorResponse": {"legacyCode": "2004", "message": "Expired Card"},
            }
        ],
    }

    def handler(request: httpx.Request) -> httpx.Response:
        if b"viewer" in request.read():
            account = {"id": "m_usd", "currencyCode": "USD", "isDefault": True, "status": "ACTIVE"}
            accounts = {"edges": [{"node": account}]}
            return httpx.Response(
                200, json={"data": {"viewer": {"merchant": {"merchantAccounts": accounts}}}}
            )
        error = {"message": "Expired Card", "extensions": {"errorClass": "VALIDATION"}}
        data = {"chargePaymentMethod": {"transaction": declined}}
        return httpx.Response(200, json={"data": data, "errors": [error]})

    with (
        httpx.Client(transport=httpx.MockTransport(handler)) as client,
        pytest.raises(Declined) as caught,
    ):
        BraintreeGateway(client).charge(SANDBOX, card(usd("10.00")))

    assert caught.value.decline_code == "expired_card"


def test_a_decline_reported_only_as_an_error_is_still_a_decline() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = request.read()
        if b"viewer" in body:
            account = {"id": "m_usd", "currencyCode": "USD", "isDefault": True, "status": "ACTIVE"}
            accounts = {"edges": [{"node": account}]}
            return httpx.Response(
                200, json={"data": {"viewer": {"merchant": {"merchantAccounts": accounts}}}}
            )
        error = {
            "message": "Insufficient Funds",
            "path": ["chargePaymentMethod"],
            "extensions": {"errorClass": "VALIDATION", "legacyCode": "2001"},
        }
        return httpx.Response(
            200,
            json={"data": {"chargePaymentMethod": None}, "errors": [error], "extensions": {}},
        )

    with (
        httpx.Client(transport=httpx.MockTransport(handler)) as client,
        pytest.raises(Declined) as caught,
    ):
        BraintreeGateway(client).charge(SANDBOX, card(usd("10.00")))

    assert caught.value.decline_code == "insufficient_funds"


@pytest.mark.parametrize("token", ["tokencc_bc_unknown_123", "fake-consumed-nonce"])
def test_an_unknown_or_used_token_is_an_invalid_payment_method(
    gateway: BraintreeGateway, token: str
) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token=token))

    assert token not in str(caught.value)
    assert token not in (caught.value.gateway_message or "")


def test_a_nonce_is_single_use(gateway: BraintreeGateway) -> None:
    gateway.charge(SANDBOX, card(usd("10.00"), key="txn_1:charge"))

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(SANDBOX, card(usd("10.00"), key="txn_2:charge"))


def test_a_retried_charge_whose_nonce_was_consumed_returns_the_first_charge(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    first = gateway.charge(SANDBOX, card(usd("10.00"), key="phk-retry"))

    again = gateway.charge(SANDBOX, card(usd("10.00"), key="phk-retry"))

    assert again.reference == first.reference
    assert again.status is GatewayStatus.CAPTURED
    assert len(fake.transactions) == 1


def test_bad_credentials_are_rejected_without_leaking_the_secret(fake: FakeBraintree) -> None:
    wrong = GatewayCredentials(
        api_secret="not-the-private-key-4242", sandbox=True, fields={"publicKey": PUBLIC_KEY}
    )
    with (
        httpx.Client(transport=httpx.MockTransport(fake.handler)) as client,
        pytest.raises(GatewayCredentialsRejected) as caught,
    ):
        BraintreeGateway(client).charge(wrong, card(usd("10.00")))

    assert "not-the-private-key-4242" not in str(caught.value)
    assert "fake-valid-nonce" not in str(caught.value)


def test_a_role_without_the_right_is_rejected_credentials(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    sale = gateway.charge(SANDBOX, card(usd("10.00")))
    fake.settle(sale.reference)
    fake.forbid("refundTransaction")

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.refund(SANDBOX, sale.reference, usd("1.00"), "txe_1:refund")

    assert caught.value.gateway_message == "User does not have the required permissions."
    assert PRIVATE_KEY not in str(caught.value)


def test_credentials_without_a_public_key_are_rejected(gateway: BraintreeGateway) -> None:
    broken = GatewayCredentials(api_secret=PRIVATE_KEY, sandbox=True)

    with pytest.raises(GatewayCredentialsRejected, match="publicKey"):
        gateway.charge(broken, card(usd("10.00")))


def test_a_server_error_is_gateway_unavailable(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    fake.fail_next(500)

    with pytest.raises(GatewayUnavailable):
        gateway.charge(SANDBOX, card(usd("10.00")))


def test_a_timeout_is_gateway_timeout(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    gateway.charge(SANDBOX, card(usd("1.00"), key="warm-up"))  # merchant accounts now cached
    fake.timeout_next()

    with pytest.raises(GatewayTimeout) as caught:
        gateway.charge(SANDBOX, card(usd("10.00"), token="fake-valid-visa-nonce"))

    assert "fake-valid-visa-nonce" not in str(caught.value)


# --- idempotency ---------------------------------------------------------------------------


def test_the_idempotency_key_travels_as_order_id_and_client_mutation_id(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    gateway.charge(SANDBOX, card(usd("10.00"), key="phk-abc123"))

    given = last_input(fake, "chargePaymentMethod")
    assert given["clientMutationId"] == "phk-abc123"
    assert given["transaction"]["orderId"] == "phk-abc123"


def test_a_retried_charge_of_a_saved_method_returns_the_original(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    method = gateway.save_payment_method(SANDBOX, save_request(MethodType.CARD, "fake-valid-nonce"))
    request = saved(usd("15.00"), method.method_ref, method.gateway_customer_ref, MethodType.CARD)

    first = gateway.charge(SANDBOX, request)
    again = gateway.charge(SANDBOX, request)

    assert again.reference == first.reference
    assert again.status is GatewayStatus.CAPTURED
    statuses = sorted(t["status"] for t in fake.transactions.values())
    assert statuses == ["GATEWAY_REJECTED", "SUBMITTED_FOR_SETTLEMENT"]  # the retry: a duplicate

    other = gateway.charge(
        SANDBOX, saved(usd("15.00"), method.method_ref, "c", MethodType.CARD, "k2")
    )
    assert other.reference != first.reference


def test_a_charge_whose_answer_was_lost_is_found_by_its_key(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    gateway.charge(SANDBOX, card(usd("1.00"), key="warm-up"))  # merchant accounts now cached
    request = card(usd("10.00"), token="fake-valid-visa-nonce", key="phk-lost")
    assert gateway.lookup(SANDBOX, request) is None
    fake.lose_next_answer()  # Braintree charges, the answer never arrives

    with pytest.raises(GatewayTimeout):
        gateway.charge(SANDBOX, request)
    found = gateway.lookup(SANDBOX, request)

    assert found is not None
    assert found.status is GatewayStatus.CAPTURED
    assert found.amount == usd("10.00")
    assert fake.transactions[found.reference]["orderId"] == "phk-lost"
    assert fake.calls("search")[-1]["variables"] == {"input": {"orderId": {"is": "phk-lost"}}}


def test_a_retried_refund_is_not_sent_twice(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    sale = gateway.charge(SANDBOX, card(usd("30.00")))
    fake.settle(sale.reference)

    first = gateway.refund(SANDBOX, sale.reference, usd("10.00"), "txe_1:refund")
    again = gateway.refund(SANDBOX, sale.reference, usd("10.00"), "txe_1:refund")

    assert again.reference == first.reference
    assert len(fake.calls("refundTransaction")) == 1


def test_a_retried_capture_and_void_succeed(gateway: BraintreeGateway) -> None:
    auth = gateway.charge(SANDBOX, card(usd("8.00"), capture=False, key="k1"))
    gateway.capture(SANDBOX, auth.reference, usd("8.00"), "txe_1:capture")
    assert gateway.capture(SANDBOX, auth.reference, usd("8.00"), "txe_1:capture").status is (
        GatewayStatus.CAPTURED
    )

    other = gateway.charge(SANDBOX, card(usd("8.00"), token="fake-valid-visa-nonce", capture=False))
    gateway.void(SANDBOX, other.reference, "txe_2:void")
    assert gateway.void(SANDBOX, other.reference, "txe_2:void").status is GatewayStatus.VOIDED


# --- environments and amounts --------------------------------------------------------------


def test_live_credentials_go_to_the_live_host() -> None:
    live = FakeBraintree(environment="live")
    for gateway in _gateway(live):
        result = gateway.charge(LIVE, card(usd("10.00")))
        assert result.status is GatewayStatus.CAPTURED
    assert {str(r.url) for r in live.requests} == {LIVE_URL}


def test_sandbox_credentials_do_not_work_on_live() -> None:
    live = FakeBraintree(environment="live")
    for gateway in _gateway(live):
        with pytest.raises(GatewayCredentialsRejected):
            gateway.charge(SANDBOX, card(usd("10.00")))
    assert {r.url.host for r in live.requests} == {"payments.sandbox.braintree-api.com"}


def test_amounts_are_exact_decimal_strings(gateway: BraintreeGateway, fake: FakeBraintree) -> None:
    amount = Money.from_minor_units(1005, "USD")

    result = gateway.charge(SANDBOX, card(amount))

    assert last_input(fake, "chargePaymentMethod")["transaction"]["amount"] == "10.05"
    assert result.amount.minor_units == 1005


def test_a_yen_charge_uses_the_yen_merchant_account_and_no_decimals(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    result = gateway.charge(SANDBOX, card(Money.of("1000", "JPY")))
    gateway.charge(SANDBOX, card(Money.of("500", "JPY"), token="fake-valid-visa-nonce"))

    given = fake.calls("chargePaymentMethod")[0]["variables"]["input"]["transaction"]
    assert given["amount"] == "1000"
    assert given["merchantAccountId"] == "fakemerchant_jpy"
    assert result.amount == Money.of("1000", "JPY")
    assert len(fake.calls("viewer")) == 1  # merchant accounts are looked up once


def test_a_currency_without_a_merchant_account_is_refused(
    gateway: BraintreeGateway, fake: FakeBraintree
) -> None:
    with pytest.raises(GatewayError, match="EUR"):
        gateway.charge(SANDBOX, card(Money.of("10.00", "EUR")))

    assert not fake.calls("chargePaymentMethod")


# --- the fake itself -----------------------------------------------------------------------


def test_the_fake_refuses_input_fields_the_schema_does_not_have(fake: FakeBraintree) -> None:
    """Why the adapter sends no ``achMandate`` when vaulting: the real schema has none there."""
    auth = base64.b64encode(f"{PUBLIC_KEY}:{PRIVATE_KEY}".encode()).decode()
    body = {
        "query": "mutation V($input: VaultUsBankAccountInput!) { vaultUsBankAccount(input: $input)"
        " { paymentMethod { id } } }",
        "variables": {
            "input": {
                "paymentMethodId": "fake-us-bank-account-nonce",
                "verificationMethod": "NETWORK_CHECK",
                "achMandate": "I authorize ...",
            }
        },
    }
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        answer = client.post(
            SANDBOX_URL,
            json=body,
            headers={"Authorization": f"Basic {auth}", "Braintree-Version": API_VERSION},
        ).json()

    assert "data" not in answer
    assert answer["errors"][0]["extensions"]["errorClass"] == "VALIDATION"
    assert answer["errors"][0]["extensions"]["inputPath"] == ["input", "achMandate"]


def test_an_unreadable_200_is_an_unexpected_answer_as_for_every_gateway() -> None:
    """Not a timeout: the kit's one rule for answers payhub cannot read (issue 14)."""
    client = httpx.Client(
        transport=httpx.MockTransport(lambda _: httpx.Response(200, text="<html>oops</html>"))
    )

    with pytest.raises(GatewayError) as caught:
        BraintreeGateway(client).charge(SANDBOX, card(usd("10.00")))

    assert type(caught.value) is GatewayError
    assert str(caught.value) == "Braintree answered in an unexpected shape"
