"""The Fiserv CommerceHub adapter against the in-memory fake of its API (``fake.py``),
and once through payhub's HTTP API."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.fiserv.adapter import FiservGateway, request_id_for, signature
from payhub.adapters.system import FixedClock
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayStatus,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import Account
from tests.gateways.fiserv.fake import API_KEY, API_SECRET, MERCHANT_ID, TERMINAL_ID, FakeFiserv
from tests.gateways.support import hub_on, usd

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
FIELDS = {"apiKey": API_KEY, "merchantId": MERCHANT_ID, "terminalId": TERMINAL_ID}


@pytest.fixture
def fake() -> FakeFiserv:
    return FakeFiserv()


@pytest.fixture
def gateway(fake: FakeFiserv) -> FiservGateway:
    return FiservGateway(fake.client(), now=lambda: NOW)


@pytest.fixture
def creds() -> GatewayCredentials:
    return GatewayCredentials(API_SECRET, sandbox=True, fields=FIELDS)


def card(
    amount: Money, *, session: str = "session-ok", capture: bool = True, key: str = "key-1"
) -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=session), capture, key)


def test_sale_is_a_signed_charge_with_capture_flag(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    session = fake.session()

    result = gateway.charge(creds, card(usd("25.05"), session=session))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("25.05")
    (sent,) = fake.bodies("/ch/payments/v1/charges")
    assert sent["amount"] == {"total": 25.05, "currency": "USD"}
    assert sent["source"] == {"sourceType": "PaymentSession", "sessionId": session}
    assert sent["transactionDetails"]["captureFlag"] is True
    assert sent["merchantDetails"] == {"merchantId": MERCHANT_ID, "terminalId": TERMINAL_ID}
    request = fake.requests[0]
    assert str(request.url) == "https://connect-cert.fiservapps.com/ch/payments/v1/charges"
    assert request.headers["Timestamp"] == str(int(NOW.timestamp() * 1000))
    assert request.headers["Client-Request-Id"] == request_id_for("charge", "key-1")
    assert request.headers["Auth-Token-Type"] == "HMAC"
    expected = base64.b64encode(
        hmac.new(
            API_SECRET.encode(),
            (
                API_KEY
                + request.headers["Client-Request-Id"]
                + request.headers["Timestamp"]
                + request.content.decode()
            ).encode(),
            hashlib.sha256,
        ).digest()
    ).decode()
    assert request.headers["Authorization"] == expected
    assert result.support["transaction_state"] == "CAPTURED"
    # The amount is written from the Decimal, digit for digit, never through a float.
    assert b'"amount":{"total":25.05,"currency":"USD"}' in request.content


def test_signature_helper() -> None:
    digest = hmac.new(b"s", b"k" + b"r" + b"1" + b"{}", hashlib.sha256).digest()
    assert signature("s", "k", "r", "1", "{}") == base64.b64encode(digest).decode()


def test_authorize_then_capture_in_full_and_in_part(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    other = gateway.charge(creds, card(usd("40.00"), capture=False, key="key-2"))

    full = gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")
    part = gateway.capture(creds, other.reference, usd("32.50"), "cap-2")

    assert (full.status, full.reference) == (GatewayStatus.CAPTURED, auth.reference)
    assert part.amount == usd("32.50")
    assert fake.transactions[other.reference]["captured"] == Decimal("32.50")
    sent = fake.bodies("/ch/payments/v1/charges")[-1]
    assert sent["referenceTransactionDetails"] == {"referenceTransactionId": other.reference}
    assert sent["transactionDetails"] == {"captureFlag": True}
    assert gateway.status(creds, auth.reference).status is GatewayStatus.CAPTURED


def test_refunds_in_parts_never_beyond_the_capture(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    sale = gateway.charge(creds, card(usd("50.00")))

    part = gateway.refund(creds, sale.reference, usd("20.00"), "ref-1")
    gateway.refund(creds, sale.reference, usd("30.00"), "ref-2")

    assert (part.status, part.amount) == (GatewayStatus.REFUNDED, usd("20.00"))
    assert fake.transactions[part.reference]["type"] == "REFUND"
    assert fake.bodies("/ch/payments/v1/refunds")[0]["referenceTransactionDetails"] == {
        "referenceTransactionId": sale.reference,
        "referenceTransactionType": "CHARGES",
    }
    with pytest.raises(GatewayError, match="109"):
        gateway.refund(creds, sale.reference, usd("0.01"), "ref-3")


def test_void_cancels_an_authorization(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    voided = gateway.void(creds, auth.reference, "void-1")

    assert (voided.status, voided.reference) == (GatewayStatus.VOIDED, auth.reference)
    assert gateway.status(creds, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError):
        gateway.capture(creds, auth.reference, usd("40.00"), "cap-1")


@pytest.mark.parametrize(("approval", "voided"), [("APPROVED", True), ("DECLINED", False)])
def test_a_cancel_answered_with_state_authorized_is_judged_by_its_approval(
    fake: FakeFiserv, creds: GatewayCredentials, approval: str, voided: bool
) -> None:
    """ActiveMerchant's recorded CommerceHub cancel answer (test/unit/gateways/
    commerce_hub_test.rb) says transactionType CANCEL, transactionState AUTHORIZED and an
    APPROVED receipt: the approval decides, not the state."""

    def cancel_as_recorded(request: httpx.Request) -> httpx.Response:
        answer = fake.handler(request)
        if request.url.path.endswith("/cancels") and answer.status_code < 400:
            body = answer.json()
            body["gatewayResponse"].update(transactionType="CANCEL", transactionState="AUTHORIZED")
            receipt = body.setdefault("paymentReceipt", {})
            receipt.setdefault("processorResponseDetails", {})["approvalStatus"] = approval
            return httpx.Response(answer.status_code, json=body)
        return answer

    gateway = FiservGateway(httpx.Client(transport=httpx.MockTransport(cancel_as_recorded)))
    auth = gateway.charge(creds, card(usd("40.00"), capture=False))

    if voided:
        assert gateway.void(creds, auth.reference, "void-1").status is GatewayStatus.VOIDED
    else:
        with pytest.raises(GatewayError, match="did not accept the cancel"):
            gateway.void(creds, auth.reference, "void-1")


def test_status_reads_the_inquiry_list(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    auth = gateway.charge(creds, card(usd("12.34"), capture=False))

    status = gateway.status(creds, auth.reference)

    assert (status.status, status.amount) == (GatewayStatus.AUTHORIZED, usd("12.34"))
    assert fake.requests[-1].url.path == "/ch/payments/v1/transaction-inquiry"


def test_status_of_an_unknown_reference_is_a_gateway_error(
    gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    with pytest.raises(GatewayError) as raised:
        gateway.status(creds, "999")

    assert type(raised.value) is GatewayError


def test_save_makes_a_transarmor_token_that_can_be_charged(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    saved = gateway.save_payment_method(
        creds,
        SaveMethodRequest(MethodType.CARD, fake.session(), "cus_42", None, idempotency_key="s"),
    )

    token, month, year = saved.method_ref.split(":")
    assert token in fake.tokens
    assert (month, year) == ("12", "2031")
    assert saved.gateway_customer_ref == "cus_42"
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("visa", "1111", 12, 2031)
    source = PaymentSource(
        MethodType.CARD, saved_method_ref=saved.method_ref, gateway_customer_ref="cus_42"
    )
    result = gateway.charge(creds, ChargeRequest(usd("9.99"), source, True, "key-9"))
    assert result.status is GatewayStatus.CAPTURED
    sent = fake.bodies("/ch/payments/v1/charges")[-1]
    assert sent["source"] == {
        "sourceType": "PaymentToken",
        "tokenData": token,
        "tokenSource": "TRANSARMOR",
        "card": {"expirationMonth": "12", "expirationYear": "2031"},
    }
    assert sent["storedCredentials"]["initiator"] == "MERCHANT"


def test_saving_a_used_session_is_payment_method_invalid(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    session = fake.session()
    gateway.charge(creds, card(usd("1.00"), session=session))

    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(creds, SaveMethodRequest(MethodType.CARD, session, "c", None))


def test_an_unknown_saved_token_is_payment_method_invalid(
    gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    source = PaymentSource(
        MethodType.CARD, saved_method_ref="000000000000:12:2031", gateway_customer_ref="c"
    )

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, ChargeRequest(usd("1.00"), source, True, "k"))


def test_bank_accounts_are_refused_before_any_call(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    bank = PaymentSource(MethodType.BANK_ACCOUNT, token="session-ok")
    with pytest.raises(ValueError, match="cards only"):
        gateway.charge(creds, ChargeRequest(usd("1.00"), bank, True, "k"))
    with pytest.raises(ValueError, match="cards only"):
        gateway.save_payment_method(
            creds, SaveMethodRequest(MethodType.BANK_ACCOUNT, "x", "c", None)
        )

    assert fake.requests == []


@pytest.mark.parametrize("session", ["session-unknown", "used"])
def test_unknown_or_used_sessions_are_payment_method_invalid(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials, session: str
) -> None:
    if session == "used":
        session = fake.session()
        gateway.charge(creds, card(usd("1.00"), session=session, key="first"))

    with pytest.raises(PaymentMethodInvalid):
        gateway.charge(creds, card(usd("1.00"), session=session, key="second"))


@pytest.mark.parametrize(
    ("secret", "fields"),
    [
        ("a-wrong-secret-123", FIELDS),
        (API_SECRET, {**FIELDS, "apiKey": "another-key-123"}),
    ],
)
def test_bad_credentials_are_rejected_without_echoing_them(
    gateway: FiservGateway, secret: str, fields: dict[str, str]
) -> None:
    with pytest.raises(GatewayCredentialsRejected) as raised:
        gateway.charge(GatewayCredentials(secret, True, fields), card(usd("1.00")))

    assert secret not in str(raised.value)
    assert fields["apiKey"] not in str(raised.value)


def test_missing_fields_never_reach_fiserv(fake: FakeFiserv, gateway: FiservGateway) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(GatewayCredentials(API_SECRET, True, {"apiKey": API_KEY}), card(usd("1.00")))

    assert fake.requests == []


def test_sandbox_credentials_never_reach_live(creds: GatewayCredentials) -> None:
    live = FakeFiserv(sandbox=False)

    with pytest.raises(GatewayCredentialsRejected):
        FiservGateway(live.client()).charge(creds, card(usd("1.00")))

    assert live.transactions == {}


def test_live_credentials_use_the_live_host() -> None:
    live = FakeFiserv(sandbox=False)

    FiservGateway(live.client()).charge(
        GatewayCredentials(API_SECRET, False, FIELDS), card(usd("1.00"))
    )

    assert str(live.requests[0].url) == "https://prod.api.fiservapps.com/ch/payments/v1/charges"


def test_a_retry_reuses_the_client_request_id_and_charges_once(
    fake: FakeFiserv, creds: GatewayCredentials
) -> None:
    clock = iter([NOW, NOW.replace(second=30)])
    gateway = FiservGateway(fake.client(), now=lambda: next(clock))

    first = gateway.charge(creds, card(usd("10.00"), key="same"))
    again = gateway.charge(creds, card(usd("10.00"), key="same"))

    assert again.reference == first.reference
    assert len(fake.charges()) == 1
    ids = {r.headers["Client-Request-Id"] for r in fake.requests}
    assert ids == {request_id_for("charge", "same")}
    assert len({r.headers["Timestamp"] for r in fake.requests}) == 2


def test_request_ids_differ_per_operation() -> None:
    assert request_id_for("charge", "k") != request_id_for("refund", "k")
    assert request_id_for("charge", "k") == request_id_for("charge", "k")


def test_tokens_and_secrets_never_appear_in_errors_or_support(
    fake: FakeFiserv, gateway: FiservGateway, creds: GatewayCredentials
) -> None:
    for session in ("session-decline-05", "session-unknown-0123456789"):
        with pytest.raises(GatewayError) as raised:
            gateway.charge(creds, card(usd("1.00"), session=session, key=session))
        text = f"{raised.value} {raised.value.gateway_message}"
        assert session not in text
        assert API_SECRET not in text
        assert API_KEY not in text
    ok = gateway.charge(creds, card(usd("1.00"), key="fine"))
    shown = json.dumps(ok.support)
    assert "session-ok" not in shown
    assert API_KEY not in shown


# --- through payhub's API ------------------------------------------------------------------

Client = TestClient[Litestar]


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeFiserv) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"fiserv": FiservGateway})


def test_a_charge_over_http(
    client: Client,
    hub: PayHub,
    fake: FakeFiserv,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-fv")
    put = client.put(
        "/api/merchant-accounts/shop-fv/credentials/fiserv",
        json={
            "apiSecret": API_SECRET,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": FIELDS,
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-fv"}
    body = {
        "amount": {"value": "25.05", "currency": "USD"},
        "gatewayName": "fiserv",
        "paymentMethodToken": fake.session(),
        "capture": False,
    }

    response = client.post("/api/payments/charge", json=body, headers=headers)

    assert response.status_code == 201, response.text
    made = response.json()
    assert made["status"] == "Authorized"
    (charge,) = fake.charges()
    assert made["gatewayReference"] == charge["id"]
    with hub.store.unit_of_work() as uow:
        merchant = next(
            m
            for p in uow.providers.list()
            for m in uow.merchants.list(p.id)
            if m.external_reference == "shop-fv"
        )
        tx = uow.transactions.get(merchant.id, made["transactionId"])
    assert tx is not None
    assert tx.status is TxStatus.AUTHORIZED
    assert fake.requests[-1].headers["Client-Request-Id"] == request_id_for(
        "charge", tx.gateway_key
    )
    assert API_SECRET not in response.text
