"""The Forte adapter against the in-memory fake of Forte's REST API v3 (``fake.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.forte.adapter import ForteGateway, order_number_for
from payhub.adapters.system import FixedClock
from payhub.domain.environments import Environment
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
from tests.conftest import Account
from tests.gateways.catalog_rows import gateway
from tests.gateways.forte.fake import ACCESS_ID, LOC, ORG, SECURE_KEY, FakeForte
from tests.gateways.support import usd

FIELDS = {"accessId": ACCESS_ID, "organizationId": ORG, "locationId": LOC}
CREDS = GatewayCredentials(api_secret=SECURE_KEY, sandbox=True, fields=FIELDS)


@pytest.fixture
def fake() -> FakeForte:
    return FakeForte()


@pytest.fixture
def forte(fake: FakeForte) -> ForteGateway:
    return ForteGateway(fake.client())


def card(token: str = "ott_visa") -> PaymentSource:
    return PaymentSource(method_type=MethodType.CARD, token=token)


def charge(
    source: PaymentSource | None = None,
    amount: str = "10.05",
    capture: bool = True,
    key: str = "k1",
) -> ChargeRequest:
    return ChargeRequest(
        amount=usd(amount), source=source or card(), capture=capture, idempotency_key=key
    )


def save(token: str = "ott_visa", customer: str | None = None) -> SaveMethodRequest:
    return SaveMethodRequest(
        method_type=MethodType.CARD,
        token=token,
        customer_id="cus_abc",
        gateway_customer_ref=customer,
        name="Ada Lovelace",
    )


def test_a_sale_sends_the_token_with_basic_auth_and_the_org_header(
    forte: ForteGateway, fake: FakeForte
) -> None:
    result = forte.charge(CREDS, charge())

    assert (result.status, result.amount) == (GatewayStatus.CAPTURED, usd("10.05"))
    assert result.reference in fake.transactions
    [sent] = fake.sent()
    assert sent == {
        "action": "sale",
        "authorization_amount": "10.05",
        "order_number": "k1",
        "card": {"one_time_token": "ott_visa"},
    }
    url = fake.requests[0][1]
    assert str(url).startswith(f"https://sandbox.forte.net/api/v3/organizations/{ORG}/locations/")


def test_ids_without_prefixes_are_prefixed(forte: ForteGateway) -> None:
    bare = {"accessId": ACCESS_ID, "organizationId": ORG[4:], "locationId": LOC[4:]}
    creds = GatewayCredentials(api_secret=SECURE_KEY, sandbox=True, fields=bare)

    assert forte.charge(creds, charge()).status is GatewayStatus.CAPTURED


def test_authorize_capture_and_status(forte: ForteGateway, fake: FakeForte) -> None:
    auth = forte.charge(CREDS, charge(capture=False))
    assert auth.status is GatewayStatus.AUTHORIZED
    assert forte.status(CREDS, auth.reference).status is GatewayStatus.AUTHORIZED

    captured = forte.capture(CREDS, auth.reference, usd("10.05"), "cap")

    assert captured.status is GatewayStatus.CAPTURED
    put = fake.sent("PUT")[-1]
    assert put == {
        "action": "capture",
        "authorization_code": fake.transactions[auth.reference].auth_code,
    }
    assert forte.status(CREDS, auth.reference).status is GatewayStatus.CAPTURED
    with pytest.raises(GatewayError):
        forte.capture(CREDS, auth.reference, usd("10.05"), "cap")


def test_the_catalog_refuses_partial_captures_for_forte() -> None:
    assert gateway("forte", Environment.SANDBOX).partial_capture is False


def test_refunds_are_reversals_in_part_then_in_full(forte: ForteGateway, fake: FakeForte) -> None:
    sale = forte.charge(CREDS, charge(amount="30.00"))

    first = forte.refund(CREDS, sale.reference, usd("10.00"), "r1")

    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("10.00"))
    sent = fake.sent()[-1]
    assert (sent["action"], sent["original_transaction_id"], sent["authorization_amount"]) == (
        "reverse",
        sale.reference,
        "10.00",
    )
    forte.refund(CREDS, sale.reference, usd("20.00"), "r2")
    assert fake.transactions[sale.reference].refunded == Decimal("30.00")
    assert forte.status(CREDS, first.reference).status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError):
        forte.refund(CREDS, sale.reference, usd("0.01"), "r3")


def test_void_cancels_the_authorization(forte: ForteGateway, fake: FakeForte) -> None:
    auth = forte.charge(CREDS, charge(capture=False))

    voided = forte.void(CREDS, auth.reference, "v")

    assert (voided.status, voided.amount) == (GatewayStatus.VOIDED, usd("10.05"))
    assert fake.sent("PUT")[-1]["action"] == "void"
    assert forte.status(CREDS, auth.reference).status is GatewayStatus.VOIDED


def test_status_of_unknown_and_malformed_references(forte: ForteGateway) -> None:
    with pytest.raises(GatewayError, match="no transaction"):
        forte.status(CREDS, "trn_00000000-0000-0000-0000-000000000000")
    with pytest.raises(GatewayError, match="not a Forte"):
        forte.status(CREDS, "../customers")


def test_a_saved_card_creates_the_customer_and_can_be_charged(
    forte: ForteGateway, fake: FakeForte
) -> None:
    method = forte.save_payment_method(CREDS, save())

    assert method.gateway_customer_ref.startswith("cst_")
    assert method.method_ref.startswith("mth_")
    assert (method.brand, method.last4, method.exp_month, method.exp_year) == (
        "visa",
        "1111",
        12,
        2030,
    )
    assert fake.sent()[0]["first_name"] == "Ada"

    source = PaymentSource(
        method_type=MethodType.CARD,
        saved_method_ref=method.method_ref,
        gateway_customer_ref=method.gateway_customer_ref,
    )
    result = forte.charge(CREDS, charge(source, key="k_saved"))

    assert result.status is GatewayStatus.CAPTURED
    sent = fake.sent()[-1]
    assert (sent["paymethod_token"], sent["customer_token"]) == (
        method.method_ref,
        method.gateway_customer_ref,
    )

    second = forte.save_payment_method(CREDS, save("ott_mastercard", method.gateway_customer_ref))
    assert second.gateway_customer_ref == method.gateway_customer_ref
    assert (second.brand, second.last4) == ("mastercard", "5454")


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("ott_decline", "generic_decline"),
        ("ott_insufficient", "insufficient_funds"),
        ("ott_expired", "expired_card"),
        ("ott_stolen", "fraudulent"),
    ],
)
def test_declines_carry_a_normalised_code(forte: ForteGateway, token: str, code: str) -> None:
    with pytest.raises(Declined) as caught:
        forte.charge(CREDS, charge(card(token)))

    assert caught.value.decline_code == code
    assert caught.value.gateway_message
    assert caught.value.gateway_request_id
    assert forte.status(CREDS, caught.value.gateway_request_id).status is GatewayStatus.DECLINED


def test_an_unknown_or_used_token_is_an_invalid_payment_method(forte: ForteGateway) -> None:
    with pytest.raises(PaymentMethodInvalid):
        forte.charge(CREDS, charge(card("ott_nobody")))
    with pytest.raises(PaymentMethodInvalid):
        forte.save_payment_method(CREDS, save("ott_nobody"))
    forte.charge(CREDS, charge(key="a"))
    with pytest.raises(PaymentMethodInvalid):
        forte.charge(CREDS, charge(amount="11.00", key="b"))


def test_wrong_or_missing_credentials_are_rejected(forte: ForteGateway, fake: FakeForte) -> None:
    wrong = GatewayCredentials(api_secret="wrong-secret-value", sandbox=True, fields=FIELDS)
    with pytest.raises(GatewayCredentialsRejected) as caught:
        forte.charge(wrong, charge())
    assert "wrong-secret-value" not in str(caught.value)
    with pytest.raises(GatewayCredentialsRejected):
        forte.charge(GatewayCredentials(api_secret=SECURE_KEY, sandbox=True), charge())
    live = GatewayCredentials(api_secret=SECURE_KEY, sandbox=False, fields=FIELDS)
    with pytest.raises(GatewayCredentialsRejected):
        forte.charge(live, charge())
    assert fake.transactions == {}


def test_a_lost_charge_is_found_by_lookup_and_a_retry_is_not_charged_twice(
    forte: ForteGateway, fake: FakeForte
) -> None:
    request = charge(key="idem_lost")
    fake.timeout_next(after_processing=True)
    with pytest.raises(GatewayTimeout):
        forte.charge(CREDS, request)

    found = forte.lookup(CREDS, request)
    again = forte.charge(CREDS, request)  # U10 duplicate -> answered from the lookup

    [txn] = fake.transactions.values()
    assert found is not None
    assert (found.reference, found.status, found.amount) == (
        txn.id,
        GatewayStatus.CAPTURED,
        usd("10.05"),
    )
    assert again.reference == txn.id
    assert len(fake.transactions) == 1
    assert forte.lookup(CREDS, charge(key="idem_never")) is None


def test_a_long_key_becomes_a_stable_order_number() -> None:
    assert len(order_number_for("k" * 80)) == 36
    assert order_number_for("k" * 80) == order_number_for("k" * 80)
    assert order_number_for("pay_1") == "pay_1"


def test_no_secret_or_token_reaches_an_error_or_a_result(fake: FakeForte) -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400, json={"response": {"response_desc": f"Invalid token {request.content.decode()}"}}
        )

    gateway_ = ForteGateway(httpx.Client(transport=httpx.MockTransport(echo)))
    with pytest.raises(GatewayError) as caught:
        gateway_.save_payment_method(CREDS, save("ott_secret_looking", customer="cst_1"))
    text = f"{caught.value} {caught.value.gateway_message}"
    assert "ott_secret_looking" not in text
    assert SECURE_KEY not in text
    result = ForteGateway(fake.client()).charge(CREDS, charge())
    assert "ott_visa" not in f"{result}"
    assert SECURE_KEY not in f"{result}"


@pytest.fixture
def api_client(
    store_url: str, key_file: Path, fake: FakeForte
) -> Iterator[tuple[TestClient[Litestar], PayHub]]:
    from payhub_server import create_app

    with fake.client() as http:
        hub = PayHub.open(
            store_url,
            key_file=key_file,
            clock=FixedClock(datetime(2026, 11, 23, 15, tzinfo=UTC)),
            gateways={"forte": ForteGateway(http)},
        )
        with TestClient(create_app(hub)) as client:
            yield client, hub
        hub.close()


def test_a_charge_over_http_reaches_forte_and_is_recorded(
    api_client: tuple[TestClient[Litestar], PayHub], fake: FakeForte
) -> None:
    client, hub = api_client
    provider, issued = hub.operators.create_provider("Provider A", Environment.SANDBOX)
    account = Account(provider, issued.secret)
    made = client.post(
        "/api/merchant-accounts",
        json={"externalReference": "shop-f", "displayName": "Shop"},
        headers=account.headers,
    )
    assert made.status_code == 201, made.text
    put = client.put(
        "/api/merchant-accounts/shop-f/credentials/forte",
        json={
            "apiSecret": SECURE_KEY,
            "environment": "Sandbox",
            "enabled": True,
            "additionalFields": FIELDS,
        },
        headers=account.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**account.headers, "X-Merchant-Reference": "shop-f"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.05", "currency": "USD"},
            "gatewayName": "forte",
            "paymentMethodToken": "ott_visa",
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    [txn] = fake.transactions.values()
    assert (body["status"], body["gatewayReference"]) == ("Captured", txn.id)
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(provider.id, "shop-f")
        assert merchant is not None
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.gateway_reference) == (TxStatus.CAPTURED, txn.id)
    assert txn.order_number == order_number_for(tx.gateway_key)

    declined = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "5.00", "currency": "USD"},
            "gatewayName": "forte",
            "paymentMethodToken": "ott_expired",
        },
        headers=headers,
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "expired_card"
