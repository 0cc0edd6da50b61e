"""The Global Payments (GP-API) adapter against the in-memory fake of its API
(``fake.py``), and once through payhub's HTTP API."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.global_payments.adapter import (
    GP_VERSION,
    REFERENCE_MAX,
    GlobalPaymentsGateway,
    reference_for,
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
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import Account
from tests.gateways.global_payments.fake import APP_ID, APP_KEY, FakeGlobalPayments
from tests.gateways.support import hub_on, usd

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)


@pytest.fixture
def fake() -> FakeGlobalPayments:
    return FakeGlobalPayments()


@pytest.fixture
def gateway(fake: FakeGlobalPayments) -> GlobalPaymentsGateway:
    return GlobalPaymentsGateway(fake.client(), now=lambda: NOW)


@pytest.fixture
def creds() -> GatewayCredentials:
    return GatewayCredentials(APP_KEY, sandbox=True, fields={"appId": APP_ID})


def card(
    amount: Money, *, token: str = "PMT_ok", capture: bool = True, key: str = "key-1"
) -> ChargeRequest:
    return ChargeRequest(
        amount, PaymentSource(MethodType.CARD, token=token), capture, key, "Order 7"
    )


def test_sale_is_captured_with_minor_units_and_the_idempotency_header(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    token = fake.single_use_token()

    result = gateway.charge(creds, card(usd("25.05"), token=token))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("25.05")
    (sent,) = fake.bodies("POST", "/ucp/transactions")
    assert sent == {
        "account_name": "transaction_processing",
        "type": "SALE",
        "channel": "CNP",
        "capture_mode": "AUTO",
        "amount": "2505",
        "currency": "USD",
        "country": "US",
        "reference": "key-1",
        "payment_method": {"entry_mode": "ECOM", "id": token},
        "description": "Order 7",
    }
    request = fake.requests[-1]
    assert request.headers["X-GP-Idempotency"] == "key-1"
    assert request.headers["X-GP-Version"] == GP_VERSION
    assert request.headers["Authorization"].startswith("Bearer tok")
    assert result.support == {"http_status": "200", "gp_status": "CAPTURED", "issuer_result": "00"}


def test_the_access_token_is_requested_with_a_sha512_secret_and_reused(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("1.00"), key="a"))
    gateway.charge(creds, card(usd("1.00"), key="b"))

    (sent,) = fake.bodies("POST", "/ucp/accesstoken")
    assert sent["app_id"] == APP_ID
    assert sent["nonce"] == "2026-11-23T10:00:00.000Z"
    assert sent["secret"] == hashlib.sha512((sent["nonce"] + APP_KEY).encode()).hexdigest()
    assert sent["grant_type"] == "client_credentials"
    assert APP_KEY not in fake.requests[0].content.decode()
    assert fake.token_requests() == 1


def test_an_expired_access_token_is_replaced_once(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("1.00"), key="a"))
    fake.expire_tokens()

    result = gateway.charge(creds, card(usd("1.00"), key="b"))

    assert result.status is GatewayStatus.CAPTURED
    assert fake.token_requests() == 2


def test_authorize_then_capture_in_full(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert fake.bodies("POST", "/ucp/transactions")[0]["capture_mode"] == "LATER"

    captured = gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")

    assert (captured.status, captured.reference) == (GatewayStatus.CAPTURED, auth.reference)
    assert fake.requests[-1].headers["X-GP-Idempotency"] == "cap-1"
    assert gateway.status(creds, auth.reference).status is GatewayStatus.CAPTURED


def test_partial_capture(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    captured = gateway.capture(creds, auth.reference, usd("32.50"), "cap-1")

    assert captured.amount == usd("32.50")
    assert fake.bodies("POST", f"/ucp/transactions/{auth.reference}/capture") == [
        {"amount": "3250"}
    ]
    assert fake.transactions[auth.reference]["_captured"] == 3250


def test_refunds_in_parts_never_beyond_the_capture(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    part = gateway.refund(creds, sale.reference, usd("20.00"), "ref-1")
    rest = gateway.refund(creds, sale.reference, usd("30.00"), "ref-2")

    assert (part.status, part.amount) == (GatewayStatus.REFUNDED, usd("20.00"))
    assert rest.reference != part.reference
    assert fake.transactions[part.reference]["type"] == "REFUND"
    with pytest.raises(GatewayError, match="INVALID_REQUEST_DATA"):
        gateway.refund(creds, sale.reference, usd("0.01"), "ref-3")


def test_void_reverses_an_authorization_and_capture_is_then_refused(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    voided = gateway.void(creds, auth.reference, "void-1")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("40.00"))
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="INVALID_TRANSACTION_ACTION"):
        gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")


def test_a_batched_sale_still_reads_captured_and_can_be_refunded(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    """BATCHED is one of the SDK's TransactionStatus values: captured, batch closed."""
    sale = gateway.charge(creds, card(usd("12.00"), token=fake.single_use_token()))
    fake.batch()

    assert gateway.status(creds, sale.reference).status is GatewayStatus.CAPTURED
    refund = gateway.refund(creds, sale.reference, usd("12.00"), "refund-batched")
    assert refund.status is GatewayStatus.REFUNDED


def test_status_of_an_unknown_reference_is_a_gateway_error(
    gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError) as raised:
        gateway.status(creds, "TRN_nothing")

    assert type(raised.value) is GatewayError


def test_a_reference_cannot_change_the_endpoint(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError):
        gateway.status(creds, "../payment-methods")

    assert fake.requests[-1].url.raw_path == b"/ucp/transactions/..%2Fpayment-methods"


def test_save_makes_the_token_multi_use_and_it_can_be_charged_again(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    token = fake.single_use_token()

    saved = gateway.save_payment_method(
        creds, SaveMethodRequest(MethodType.CARD, token, "cus_42", None, idempotency_key="save-1")
    )

    assert saved.method_ref == token
    assert saved.gateway_customer_ref == "cus_42"
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("visa", "1111", 12, 2031)
    assert fake.bodies("PATCH", f"/ucp/payment-methods/{token}") == [{"usage_mode": "MULTIPLE"}]
    source = PaymentSource(MethodType.CARD, saved_method_ref=token, gateway_customer_ref="cus_42")
    for key in ("k1", "k2"):
        result = gateway.charge(creds, ChargeRequest(usd("9.99"), source, True, key))
        assert result.status is GatewayStatus.CAPTURED


def test_an_existing_customer_ref_is_kept(
    gateway: GlobalPaymentsGateway, fake: FakeGlobalPayments, creds: GatewayCredentials
) -> None:
    saved = gateway.save_payment_method(
        creds, SaveMethodRequest(MethodType.CARD, fake.single_use_token(), "cus_1", "cus_1")
    )

    assert saved.gateway_customer_ref == "cus_1"


def test_saving_a_used_token_is_payment_method_invalid(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    token = fake.single_use_token()
    gateway.charge(creds, card(usd("1.00"), token=token))

    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(creds, SaveMethodRequest(MethodType.CARD, token, "c", None))


def test_bank_accounts_are_refused_before_any_call(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    bank = PaymentSource(MethodType.BANK_ACCOUNT, token="PMT_ok")
    with pytest.raises(ValueError, match="cards only"):
        gateway.charge(creds, ChargeRequest(usd("1.00"), bank, True, "k"))
    with pytest.raises(ValueError, match="cards only"):
        gateway.save_payment_method(
            creds, SaveMethodRequest(MethodType.BANK_ACCOUNT, "PMT_ok", "c", None)
        )

    assert fake.requests == []


def test_a_declined_transaction_reads_as_declined(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(Declined):
        gateway.charge(creds, card(usd("10.00"), token="PMT_decline_51"))
    (declined,) = fake.transactions

    status = gateway.status(creds, declined)

    assert (status.status, status.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


@pytest.mark.parametrize("token", ["PMT_unknown", "single-use-used"])
def test_unknown_or_used_tokens_are_payment_method_invalid(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials, token: str
) -> None:
    if token == "single-use-used":
        token = fake.single_use_token()
        gateway.charge(creds, card(usd("1.00"), token=token, key="first"))

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, card(usd("1.00"), token=token, key="second"))


@pytest.mark.parametrize(
    ("secret", "fields"),
    [("wrong-app-key", {"appId": APP_ID}), (APP_KEY, {"appId": "other-app"}), (APP_KEY, {})],
)
def test_bad_credentials_are_rejected_without_echoing_them(
    gateway: GlobalPaymentsGateway, secret: str, fields: dict[str, str]
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as raised:
        gateway.charge(GatewayCredentials(secret, True, fields), card(usd("1.00")))

    assert secret not in str(raised.value)


def test_sandbox_credentials_never_reach_live(creds: GatewayCredentials) -> None:
    live = FakeGlobalPayments(sandbox=False)

    with pytest.raises(GatewayCredentialsRejected):
        GlobalPaymentsGateway(live.client()).charge(creds, card(usd("1.00")))

    assert live.transactions == {}


def test_live_credentials_use_the_live_host() -> None:
    live = FakeGlobalPayments(sandbox=False)
    creds = GatewayCredentials(APP_KEY, sandbox=False, fields={"appId": APP_ID})

    GlobalPaymentsGateway(live.client()).charge(creds, card(usd("1.00")))

    assert {str(r.url) for r in live.requests} == {
        "https://apis.globalpay.com/ucp/accesstoken",
        "https://apis.globalpay.com/ucp/transactions",
    }


def test_a_server_error_is_gateway_unavailable(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    gateway.charge(creds, card(usd("1.00"), key="warm"))  # token cached
    fake.fail_next()

    with pytest.raises(GatewayUnavailable) as raised:
        gateway.charge(creds, card(usd("10.00")))

    assert raised.value.retry_safe
    assert len(fake.transactions) == 1


def test_a_body_that_is_not_json_is_a_gateway_error(creds: GatewayCredentials) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>maintenance</html>")

    gateway = GlobalPaymentsGateway(httpx.Client(transport=httpx.MockTransport(handler)))

    with pytest.raises(GatewayError, match="unexpected shape"):
        gateway.charge(creds, card(usd("10.00")))


def test_a_retried_charge_is_answered_by_the_idempotency_key(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    first = gateway.charge(creds, card(usd("10.00"), key="same"))
    again = gateway.charge(creds, card(usd("10.00"), key="same"))

    assert again.reference == first.reference
    assert len(fake.transactions) == 1
    with pytest.raises(GatewayError, match="idempotency key"):
        gateway.charge(creds, card(usd("11.00"), key="same"))


def test_long_keys_are_hashed_into_the_reference() -> None:
    assert len(reference_for("k" * 80)) == REFERENCE_MAX
    assert reference_for("short") == "short"


def test_tokens_and_secrets_never_appear_in_errors_or_support(
    fake: FakeGlobalPayments, gateway: GlobalPaymentsGateway, creds: GatewayCredentials
) -> None:
    for token in ("PMT_decline_05", "PMT_unknown_secretish"):
        with pytest.raises(GatewayError) as raised:
            gateway.charge(creds, card(usd("1.00"), token=token, key=token))
        text = f"{raised.value} {raised.value.gateway_message}"
        assert token not in text
        assert APP_KEY not in text
    ok = gateway.charge(creds, card(usd("1.00"), key="fine"))
    assert "PMT_ok" not in json.dumps(ok.support)
    bearer = fake.requests[-1].headers["Authorization"][7:]
    assert bearer not in json.dumps(ok.support)


# --- through payhub's API ------------------------------------------------------------------

Client = TestClient[Litestar]


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, fake: FakeGlobalPayments
) -> Iterator[PayHub]:
    yield from hub_on(
        store_url, key_file, clock, fake.handler, {"global-payments": GlobalPaymentsGateway}
    )


def test_a_charge_over_http(
    client: Client,
    hub: PayHub,
    fake: FakeGlobalPayments,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-gp")
    put = client.put(
        "/api/merchant-accounts/shop-gp/credentials/global-payments",
        json={
            "apiSecret": APP_KEY,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"appId": APP_ID},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-gp"}
    body = {
        "amount": {"value": "25.05", "currency": "USD"},
        "gatewayName": "global-payments",
        "paymentMethodToken": fake.single_use_token(),
    }

    response = client.post("/api/payments/charge", json=body, headers=headers)

    assert response.status_code == 201, response.text
    made = response.json()
    assert made["status"] == "Captured"
    (tx_id,) = fake.transactions
    assert made["gatewayReference"] == tx_id
    with hub.store.unit_of_work() as uow:
        merchant = next(
            m
            for p in uow.providers.list()
            for m in uow.merchants.list(p.id)
            if m.external_reference == "shop-gp"
        )
        tx = uow.transactions.get(merchant.id, made["transactionId"])
    assert tx is not None
    assert tx.status is TxStatus.CAPTURED
    assert fake.requests[-1].headers["X-GP-Idempotency"] == tx.gateway_key
    assert fake.transactions[tx_id]["amount"] == "2505"
    assert APP_KEY not in response.text
