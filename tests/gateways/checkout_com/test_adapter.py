"""The Checkout.com adapter against an in-memory fake of its API
(its fake.py beside this file)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.checkout_com.adapter import SANDBOX_BASE, CheckoutComGateway
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
from tests.conftest import START, Account
from tests.gateways.checkout_com.fake import LIVE_KEY, SANDBOX_KEY, FakeCheckoutCom
from tests.gateways.support import hub_on, usd

SANDBOX = GatewayCredentials(SANDBOX_KEY, sandbox=True, fields={"processingChannelId": "pc_1"})


@pytest.fixture
def fake() -> FakeCheckoutCom:
    return FakeCheckoutCom()


@pytest.fixture
def gateway(fake: FakeCheckoutCom) -> Iterator[CheckoutComGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield CheckoutComGateway(client)


def charge(amount: Money, token: str, capture: bool = True, key: str = "k-1") -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=token), capture, key)


def test_sale(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    result = gateway.charge(SANDBOX, charge(usd("10.05"), fake.token()))

    # Checkout.com answers a capture:true payment "Authorized" and captures it later.
    assert (result.status, result.amount) == (GatewayStatus.AUTHORIZED, usd("10.05"))
    assert result.support["capture"] == "pending"
    assert gateway.status(SANDBOX, result.reference).status is GatewayStatus.AUTHORIZED
    fake.settle()
    settled = gateway.status(SANDBOX, result.reference)
    assert (settled.status, settled.captured) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert fake.violations == []
    request = fake.requests[0]
    assert str(request.url) == f"{SANDBOX_BASE}/payments"
    assert request.headers["Authorization"] == f"Bearer {SANDBOX_KEY}"
    assert request.headers["Cko-Idempotency-Key"] == "k-1"
    body = fake.bodies("/payments")[0]
    assert (body["amount"], body["currency"], body["capture"]) == (1005, "USD", True)
    assert (body["reference"], body["processing_channel_id"]) == ("k-1", "pc_1")
    assert body["source"]["type"] == "token"


def test_authorize_capture_part_then_refund(
    gateway: CheckoutComGateway, fake: FakeCheckoutCom
) -> None:
    auth = gateway.charge(SANDBOX, charge(usd("10.00"), fake.token(), capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED

    accepted = gateway.capture(SANDBOX, auth.reference, usd("6.00"), "cap-1")
    assert accepted.status is GatewayStatus.PENDING  # 202: accepted, not done
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.AUTHORIZED
    fake.settle()
    status = gateway.status(SANDBOX, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, usd("6.00"))
    assert fake.bodies(f"/payments/{auth.reference}/captures")[0] == {
        "reference": "cap-1",
        "amount": 600,
    }

    gateway.refund(SANDBOX, auth.reference, usd("2.00"), "ref-1")
    fake.settle()
    partly = gateway.status(SANDBOX, auth.reference)
    assert (partly.status, partly.refunded) == (GatewayStatus.CAPTURED, usd("2.00"))
    assert gateway.refund(SANDBOX, auth.reference, usd("4.00"), "ref-2").status is (
        GatewayStatus.PENDING
    )
    fake.settle()
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.REFUNDED


def test_capture_in_full_and_void(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    auth = gateway.charge(SANDBOX, charge(usd("8.00"), fake.token(), capture=False, key="a"))
    assert gateway.capture(SANDBOX, auth.reference, usd("8.00"), "c").status is (
        GatewayStatus.PENDING
    )
    other = gateway.charge(SANDBOX, charge(usd("7.00"), fake.token(), capture=False, key="b"))

    assert gateway.void(SANDBOX, other.reference, "v").status is GatewayStatus.PENDING
    fake.settle()
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.CAPTURED
    assert gateway.status(SANDBOX, other.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="does not allow this capture"):
        gateway.capture(SANDBOX, other.reference, usd("7.00"), "c2")


def test_over_refund_is_refused(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    sale = gateway.charge(SANDBOX, charge(usd("5.00"), fake.token()))
    with pytest.raises(GatewayError, match="refund_amount_exceeds_balance"):
        gateway.refund(SANDBOX, sale.reference, usd("5.01"), "r")


@pytest.mark.parametrize(
    ("amount", "code"),
    [
        ("0.05", "generic_decline"),
        ("120.51", "insufficient_funds"),
        ("120.54", "expired_card"),
        ("120.82", "incorrect_cvc"),
        ("120.59", "fraudulent"),
        ("120.91", "processing_error"),
    ],
)
def test_declines(
    gateway: CheckoutComGateway, fake: FakeCheckoutCom, amount: str, code: str
) -> None:
    with pytest.raises(Declined) as caught:
        gateway.charge(SANDBOX, charge(usd(amount), fake.token()))
    assert caught.value.decline_code == code
    assert caught.value.gateway_message


def test_unknown_or_used_tokens_are_invalid(
    gateway: CheckoutComGateway, fake: FakeCheckoutCom
) -> None:
    token = fake.token()
    gateway.charge(SANDBOX, charge(usd("1.00"), token))
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, charge(usd("1.00"), token, key="k-2"))
    assert token not in str(caught.value) + (caught.value.gateway_message or "")


def test_bad_key_and_wrong_mode(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(GatewayCredentials("sk_sbox_wrong9876", True), charge(usd("1.00"), "tok_x"))
    assert "9876" not in str(caught.value)
    sent = len(fake.requests)
    for creds in (GatewayCredentials(LIVE_KEY, True), GatewayCredentials(SANDBOX_KEY, False)):
        with pytest.raises(GatewayCredentialsRejected):
            gateway.charge(creds, charge(usd("1.00"), "tok_x"))
    assert len(fake.requests) == sent


def test_outages(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    fake.fail_next(502)
    with pytest.raises(GatewayUnavailable):
        gateway.charge(SANDBOX, charge(usd("1.00"), fake.token()))
    fake.fail_next(429)
    with pytest.raises(GatewayUnavailable):
        gateway.charge(SANDBOX, charge(usd("1.00"), fake.token()))

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("no answer", request=request)

    with httpx.Client(transport=httpx.MockTransport(slow)) as client, pytest.raises(GatewayTimeout):
        CheckoutComGateway(client).charge(SANDBOX, charge(usd("1.00"), "tok_x"))


def test_a_retry_is_replayed(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    request = charge(usd("3.00"), fake.token(), key="same")
    assert gateway.charge(SANDBOX, request).reference == gateway.charge(SANDBOX, request).reference
    assert len(fake.payments) == 1


def test_save_and_charge_a_card(gateway: CheckoutComGateway, fake: FakeCheckoutCom) -> None:
    save = SaveMethodRequest(
        MethodType.CARD, fake.token("1111"), "cus-7", None, "ada@example.com", idempotency_key="s"
    )
    saved = gateway.save_payment_method(SANDBOX, save)

    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == ("Visa", "1111", 6, 2030)
    assert fake.customers[saved.gateway_customer_ref]["metadata"] == {"payhub_customer_id": "cus-7"}
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )
    result = gateway.charge(SANDBOX, ChargeRequest(usd("9.00"), source, True, "m-1"))
    assert result.status is GatewayStatus.AUTHORIZED  # captured asynchronously
    body = fake.bodies("/payments")[0]
    assert body["source"] == {"type": "id", "id": saved.method_ref}
    assert (body["payment_type"], body["merchant_initiated"]) == ("Unscheduled", True)

    second = gateway.save_payment_method(
        SANDBOX,
        SaveMethodRequest(
            MethodType.CARD, fake.token(), "cus-7", saved.gateway_customer_ref, idempotency_key="s2"
        ),
    )
    assert second.gateway_customer_ref == saved.gateway_customer_ref
    assert len(fake.customers) == 1
    with pytest.raises(PaymentMethodInvalid):
        gateway.save_payment_method(
            SANDBOX,
            SaveMethodRequest(
                MethodType.CARD,
                "tok_nope",
                "cus-7",
                saved.gateway_customer_ref,
                idempotency_key="s3",
            ),
        )


@pytest.fixture
def hub(store_url: str, key_file: Path, fake: FakeCheckoutCom) -> Iterator[PayHub]:
    yield from hub_on(
        store_url, key_file, FixedClock(START), fake.handler, {"checkout-com": CheckoutComGateway}
    )


def test_charge_over_http(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeCheckoutCom,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-cko")
    put = client.put(
        "/api/merchant-accounts/shop-cko/credentials/checkout-com",
        json={
            "apiSecret": SANDBOX_KEY,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": {"processingChannelId": "pc_1"},
        },
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-cko"}
    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": 25.05, "currency": "USD"},
            "gatewayName": "checkout-com",
            "paymentMethodToken": fake.token(),
        },
        headers=headers,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(sandbox_provider.provider.id, "shop-cko")
        assert merchant is not None
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    # A sale Checkout.com answered "Authorized" is a pending capture, never an authorization.
    assert body["status"] == "CapturePending"
    assert (tx.status, tx.amount, tx.captured) == (
        TxStatus.CAPTURE_PENDING,
        usd("25.05"),
        usd("25.05"),
    )
    assert fake.payments[tx.gateway_reference or ""]["amount"] == 2505
    assert SANDBOX_KEY not in response.text
    base = f"/api/payments/checkout-com/transactions/{body['transactionId']}"
    assert client.post(f"{base}/capture", headers=headers).status_code == 409
    unchanged = client.get(f"{base}?refresh=true", headers=headers).json()
    assert unchanged["status"] == "CapturePending"
    fake.settle()
    settled = client.get(f"{base}?refresh=true", headers=headers).json()
    assert (settled["status"], settled["capturedAmount"]["value"]) == ("Captured", 25.05)

    # A refund is answered 202: pending until Checkout.com has done it.
    refund = client.post(
        f"{base}/refund", json={"amount": {"value": 5, "currency": "USD"}}, headers=headers
    ).json()
    assert (refund["status"], refund["refundedAmount"]["value"]) == ("RefundPending", 5)
    assert client.post(f"{base}/refund", headers=headers).status_code == 409
    fake.settle()
    done = client.get(f"{base}?refresh=true", headers=headers).json()
    assert (done["status"], done["refundedAmount"]["value"]) == ("PartiallyRefunded", 5)
    assert fake.violations == []


def test_an_authorization_captured_and_voided_over_http_settles_on_refresh(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeCheckoutCom,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-cko")
    client.put(
        "/api/merchant-accounts/shop-cko/credentials/checkout-com",
        json={"apiSecret": SANDBOX_KEY, "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-cko"}

    def authorize() -> str:
        made = client.post(
            "/api/payments/charge",
            json={
                "amount": {"value": 10, "currency": "USD"},
                "gatewayName": "checkout-com",
                "paymentMethodToken": fake.token(),
                "capture": False,
            },
            headers=headers,
        )
        assert made.json()["status"] == "Authorized", made.text
        return f"/api/payments/checkout-com/transactions/{made.json()['transactionId']}"

    captured, voided = authorize(), authorize()
    assert client.post(f"{captured}/capture", headers=headers).json()["status"] == (
        "CapturePending"
    )
    assert client.post(f"{voided}/void", headers=headers).json()["status"] == "VoidPending"
    fake.settle()
    assert client.get(f"{captured}?refresh=true", headers=headers).json()["status"] == "Captured"
    assert client.get(f"{voided}?refresh=true", headers=headers).json()["status"] == "Voided"
