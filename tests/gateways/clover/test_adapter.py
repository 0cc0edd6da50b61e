"""The Clover adapter against an in-memory fake of Clover's Ecommerce API
(its fake.py beside this file)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.clover.adapter import (
    LIVE_BASE_URL,
    SANDBOX_BASE_URL,
    CloverGateway,
    clover_amount,
    clover_key,
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
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    PaymentSource,
    SaveMethodRequest,
    TxStatus,
)
from tests.conftest import Account
from tests.gateways.clover.fake import LIVE_KEY, SANDBOX_KEY, FakeClover
from tests.gateways.support import hub_on, usd

SANDBOX = GatewayCredentials(api_secret=SANDBOX_KEY, sandbox=True)
LIVE = GatewayCredentials(api_secret=LIVE_KEY, sandbox=False)


@pytest.fixture
def fake() -> FakeClover:
    return FakeClover()


@pytest.fixture
def gateway(fake: FakeClover) -> Iterator[CloverGateway]:
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as client:
        yield CloverGateway(client)


def card(token: str, amount: Money, capture: bool = True, key: str = "charge-1") -> ChargeRequest:
    return ChargeRequest(amount, PaymentSource(MethodType.CARD, token=token), capture, key)


def sent(request: httpx.Request) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(request.content)
    return body


# --- charges, captures, refunds, voids, status --------------------------------------------


def test_a_sale_posts_cents_and_a_uuid_idempotency_key(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    token = fake.tokenize()

    result = gateway.charge(SANDBOX, card(token, usd("10.05")))

    assert result.status is GatewayStatus.CAPTURED
    assert result.amount == usd("10.05")
    assert fake.charges[result.reference]["captured"] is True
    [request] = fake.posts("/v1/charges")
    assert str(request.url) == f"{SANDBOX_BASE_URL}/v1/charges"
    assert request.headers["Authorization"] == f"Bearer {SANDBOX_KEY}"
    assert request.headers["Idempotency-Key"] == clover_key("charge-1")
    assert uuid.UUID(request.headers["Idempotency-Key"]).version == 4
    assert request.headers["x-forwarded-for"]
    assert sent(request) == {
        "amount": 1005,
        "currency": "usd",
        "capture": True,
        "ecomind": "ecom",
        "source": token,
    }
    assert result.support["clover_status"] == "succeeded"
    assert result.support["request_id"].startswith("req-")


def test_authorize_then_capture_in_full(gateway: CloverGateway, fake: FakeClover) -> None:
    auth = gateway.charge(SANDBOX, card(fake.tokenize(), usd("42.00"), capture=False))
    assert (auth.status, auth.amount) == (GatewayStatus.AUTHORIZED, usd("42.00"))
    assert sent(fake.posts("/v1/charges")[0])["capture"] is False

    captured = gateway.capture(SANDBOX, auth.reference, usd("42.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("42.00"))
    request = fake.posts(f"/v1/charges/{auth.reference}/capture")[0]
    assert sent(request) == {"amount": 4200}
    assert request.headers["Idempotency-Key"] == clover_key("capture-1")


def test_authorize_then_capture_part(gateway: CloverGateway, fake: FakeClover) -> None:
    auth = gateway.charge(SANDBOX, card(fake.tokenize(), usd("10.00"), capture=False))

    captured = gateway.capture(SANDBOX, auth.reference, usd("6.00"), "capture-1")

    assert (captured.status, captured.amount) == (GatewayStatus.CAPTURED, usd("6.00"))
    status = gateway.status(SANDBOX, auth.reference)
    assert (status.status, status.amount) == (GatewayStatus.CAPTURED, usd("6.00"))


def test_a_second_capture_is_refused_with_clovers_code(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    sale = gateway.charge(SANDBOX, card(fake.tokenize(), usd("10.00")))

    with pytest.raises(GatewayError, match="charge_already_captured") as caught:
        gateway.capture(SANDBOX, sale.reference, usd("10.00"), "capture-1")

    assert type(caught.value) is GatewayError


def test_refunds_in_part_then_in_full(gateway: CloverGateway, fake: FakeClover) -> None:
    sale = gateway.charge(SANDBOX, card(fake.tokenize(), usd("30.00")))

    first = gateway.refund(SANDBOX, sale.reference, usd("12.50"), "refund-1")

    assert (first.status, first.amount) == (GatewayStatus.REFUNDED, usd("12.50"))
    assert first.support["charge"] == sale.reference
    request = fake.posts("/v1/refunds")[0]
    assert sent(request) == {"charge": sale.reference, "amount": 1250}
    assert request.headers["Idempotency-Key"] == clover_key("refund-1")
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.CAPTURED

    gateway.refund(SANDBOX, sale.reference, usd("17.50"), "refund-2")
    assert gateway.status(SANDBOX, sale.reference).status is GatewayStatus.REFUNDED
    with pytest.raises(GatewayError, match="charge_already_refunded"):
        gateway.refund(SANDBOX, sale.reference, usd("0.01"), "refund-3")


def test_a_void_releases_the_authorization(gateway: CloverGateway, fake: FakeClover) -> None:
    auth = gateway.charge(SANDBOX, card(fake.tokenize(), usd("15.00"), capture=False))

    voided = gateway.void(SANDBOX, auth.reference, "void-1")

    assert (voided.status, voided.reference) == (GatewayStatus.VOIDED, auth.reference)
    assert sent(fake.posts("/v1/refunds")[0]) == {"charge": auth.reference}
    assert fake.charges[auth.reference]["refunded"] is True
    assert gateway.status(SANDBOX, auth.reference).status is GatewayStatus.VOIDED
    with pytest.raises(GatewayError, match="charge_already_refunded"):
        gateway.capture(SANDBOX, auth.reference, usd("15.00"), "capture-after-void")


def test_status_of_an_authorization(gateway: CloverGateway, fake: FakeClover) -> None:
    auth = gateway.charge(SANDBOX, card(fake.tokenize(), usd("15.00"), capture=False))

    status = gateway.status(SANDBOX, auth.reference)

    assert (status.status, status.amount) == (GatewayStatus.AUTHORIZED, usd("15.00"))
    get = fake.requests[-1]
    assert get.method == "GET"
    assert "Idempotency-Key" not in get.headers


def test_status_of_an_unknown_reference(gateway: CloverGateway) -> None:
    with pytest.raises(GatewayError, match="no object with that reference"):
        gateway.status(SANDBOX, "NOSUCHCHARGE1")


def test_status_of_a_declined_charge_is_declined(gateway: CloverGateway, fake: FakeClover) -> None:
    with pytest.raises(Declined):
        gateway.charge(SANDBOX, card(fake.tokenize("4000000000009995"), usd("10.00")))
    [charge_id] = fake.charges

    status = gateway.status(SANDBOX, charge_id)

    assert (status.status, status.decline_code) == (GatewayStatus.DECLINED, "insufficient_funds")


# --- declines and invalid tokens ------------------------------------------------------------


@pytest.mark.parametrize(
    ("clover", "payhub"),
    [
        ("issuer_declined", "generic_decline"),
        ("stolen_card", "fraudulent"),
        ("INVALID_CVC", "incorrect_cvc"),
        ("insufficient_funds", "insufficient_funds"),
        (None, "generic_decline"),
    ],
)
def test_decline_code_normalisation(clover: str | None, payhub: str) -> None:
    assert normalise_decline(clover) == payhub


def test_an_unknown_token_is_an_invalid_payment_method(gateway: CloverGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, card("clv_1TSTnotatoken", usd("10.00")))

    assert "clv_1TSTnotatoken" not in str(caught.value)


def test_a_used_token_is_an_invalid_payment_method(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    token = fake.tokenize()
    gateway.charge(SANDBOX, card(token, usd("10.00"), key="first"))

    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.charge(SANDBOX, card(token, usd("10.00"), key="second"))

    assert "token_already_used" not in str(caught.value)  # the code stays in support fields
    assert token not in str(caught.value) + (caught.value.gateway_message or "")


# --- credentials, hosts, outages ------------------------------------------------------------


def test_bad_credentials_are_rejected_without_echoing_the_key(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    wrong = GatewayCredentials(api_secret="11111111-2222-4333-8444-555555555555", sandbox=True)

    with pytest.raises(GatewayCredentialsRejected) as caught:
        gateway.charge(wrong, card(fake.tokenize(), usd("10.00")))

    assert "5555" not in str(caught.value)


def test_a_sandbox_key_on_the_live_host_is_rejected(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    with pytest.raises(GatewayCredentialsRejected):
        gateway.charge(
            GatewayCredentials(api_secret=SANDBOX_KEY, sandbox=False),
            card(fake.tokenize(), usd("10.00")),
        )
    assert fake.requests[-1].url.host == "scl.clover.com"


def test_live_credentials_use_the_live_host(gateway: CloverGateway, fake: FakeClover) -> None:
    result = gateway.charge(LIVE, card(fake.tokenize(), usd("10.00")))

    assert str(fake.requests[-1].url) == f"{LIVE_BASE_URL}/v1/charges"
    assert fake.charges[result.reference]["livemode"] is True
    with pytest.raises(GatewayError, match="no object"):
        gateway.status(SANDBOX, result.reference)


def test_a_rate_limit_is_gateway_unavailable(gateway: CloverGateway, fake: FakeClover) -> None:
    fake.fail_next(429)

    with pytest.raises(GatewayUnavailable, match="slow down"):
        gateway.charge(SANDBOX, card(fake.tokenize(), usd("10.00")))


# --- idempotency ----------------------------------------------------------------------------


def test_a_retried_charge_is_answered_with_the_original(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    request = card(fake.tokenize(), usd("10.00"), key="same-key")

    first = gateway.charge(SANDBOX, request)
    again = gateway.charge(SANDBOX, request)  # the single-use token is not spent twice

    assert again.reference == first.reference
    assert len(fake.charges) == 1


def test_a_retried_decline_is_replayed_not_retried(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    request = card(fake.tokenize("4000000000009995"), usd("10.00"), key="declined")
    for _ in range(2):
        with pytest.raises(Declined):
            gateway.charge(SANDBOX, request)

    assert len(fake.charges) == 1


def test_a_key_reused_for_another_request_is_refused(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    token = fake.tokenize()
    gateway.charge(SANDBOX, card(token, usd("10.00"), key="same-key"))

    with pytest.raises(GatewayError, match="idempotency key") as caught:
        gateway.charge(SANDBOX, card(token, usd("11.00"), key="same-key"))

    assert caught.value.retry_safe is False


def test_keys_are_stable_per_key_and_step() -> None:
    assert clover_key("k") == clover_key("k")
    assert clover_key("k") != clover_key("k", "customer")
    assert uuid.UUID(clover_key("x" * 500)).version == 4


def test_amounts_are_minor_units() -> None:
    assert clover_amount(usd("10.05")) == 1005
    assert clover_amount(Money.of(1500, "JPY")) == 1500


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


def test_saving_a_card_creates_a_card_on_file_customer(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    token = fake.tokenize("4242424242424242")

    saved = gateway.save_payment_method(SANDBOX, save(token))

    customer = fake.customers[saved.gateway_customer_ref]
    assert customer["email"] == "ada@example.com"
    assert saved.method_ref in fake.multi_pay
    assert (saved.brand, saved.last4, saved.exp_month, saved.exp_year) == (
        "visa",
        "4242",
        12,
        2030,
    )
    body = fake.bodies("/v1/customers")[0]
    assert body["source"] == token
    assert fake.posts("/v1/customers")[0].headers["Idempotency-Key"] == clover_key(
        "save-1", "customer"
    )


def test_a_second_card_is_added_to_the_existing_customer(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    first = gateway.save_payment_method(SANDBOX, save(fake.tokenize()))

    second = gateway.save_payment_method(
        SANDBOX,
        save(fake.tokenize("5555555555554444", "MC"), first.gateway_customer_ref, "save-2"),
    )

    assert second.gateway_customer_ref == first.gateway_customer_ref
    assert second.method_ref != first.method_ref
    assert (second.brand, second.last4) == ("mc", "4444")
    assert len(fake.customers) == 1
    assert fake.requests[-1].method == "PUT"


def test_charge_a_saved_card_with_stored_credentials(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    saved = gateway.save_payment_method(SANDBOX, save(fake.tokenize()))
    source = PaymentSource(
        MethodType.CARD,
        saved_method_ref=saved.method_ref,
        gateway_customer_ref=saved.gateway_customer_ref,
    )

    result = gateway.charge(SANDBOX, ChargeRequest(usd("25.00"), source, True, "saved-1"))

    assert result.status is GatewayStatus.CAPTURED
    body = fake.bodies("/v1/charges")[0]
    assert body["source"] == saved.method_ref
    assert body["stored_credentials"] == {
        "sequence": "SUBSEQUENT",
        "is_scheduled": False,
        "initiator": "MERCHANT",
    }


def test_saving_a_declined_card_is_declined(gateway: CloverGateway, fake: FakeClover) -> None:
    with pytest.raises(Declined) as caught:
        gateway.save_payment_method(SANDBOX, save(fake.tokenize("4000000000009995")))

    assert caught.value.decline_code == "insufficient_funds"


def test_saving_an_unknown_token_is_an_invalid_payment_method(gateway: CloverGateway) -> None:
    with pytest.raises(PaymentMethodInvalid) as caught:
        gateway.save_payment_method(SANDBOX, save("clv_1TSTunknown"))

    assert "clv_1TSTunknown" not in str(caught.value)


def test_bank_accounts_are_not_taken(gateway: CloverGateway, fake: FakeClover) -> None:
    source = PaymentSource(MethodType.BANK_ACCOUNT, token="clv_bank")
    with pytest.raises(ValueError, match="card"):
        gateway.charge(SANDBOX, ChargeRequest(usd("5.00"), source, True, "ach"))
    assert fake.requests == []


# --- no secret or token leaks ---------------------------------------------------------------


def test_no_secret_or_token_reaches_an_error_or_a_result(
    gateway: CloverGateway, fake: FakeClover
) -> None:
    token = fake.tokenize()
    result = gateway.charge(SANDBOX, card(token, usd("10.00")))
    failures: list[GatewayError] = []
    for attempt in (
        lambda: gateway.charge(SANDBOX, card(token, usd("10.00"), key="reuse")),
        lambda: gateway.charge(
            GatewayCredentials(api_secret="bad-" + SANDBOX_KEY, sandbox=True),
            card(fake.tokenize(), usd("1.00")),
        ),
        lambda: gateway.capture(SANDBOX, result.reference, usd("1.00"), "c"),
    ):
        with pytest.raises(GatewayError) as caught:
            attempt()
        failures.append(caught.value)

    for text in [str(result), *(f"{e} {e.gateway_message} {vars(e)}" for e in failures)]:
        assert SANDBOX_KEY not in text
        assert token not in text


def test_a_token_echoed_by_clover_is_blanked_from_the_gateway_message() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400,
            json={
                "error": {
                    "type": "invalid_request_error",
                    "code": "invalid_request",
                    "message": "Bad source clv_1TSTsecretTOKEN for key " + SANDBOX_KEY,
                }
            },
        )

    with (
        httpx.Client(transport=httpx.MockTransport(echo)) as client,
        pytest.raises(GatewayError) as caught,
    ):
        CloverGateway(client).charge(SANDBOX, card("clv_1TSTsecretTOKEN", usd("1.00")))

    assert "clv_1TSTsecretTOKEN" not in (caught.value.gateway_message or "")
    assert SANDBOX_KEY not in (caught.value.gateway_message or "")


# --- through payhub's HTTP API --------------------------------------------------------------


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, fake: FakeClover) -> Iterator[PayHub]:
    yield from hub_on(store_url, key_file, clock, fake.handler, {"clover": CloverGateway})


def test_a_charge_through_payhubs_api_reaches_clover(
    client: TestClient[Litestar],
    hub: PayHub,
    fake: FakeClover,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    put = client.put(
        "/api/merchant-accounts/shop-1/credentials/clover",
        json={"apiSecret": SANDBOX_KEY, "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text
    headers = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}

    response = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.05", "currency": "USD"},
            "gatewayName": "clover",
            "paymentMethodToken": fake.tokenize(),
            "capture": False,
        },
        headers=headers,
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Authorized"
    [charge] = fake.charges.values()
    assert body["gatewayReference"] == charge["id"]
    assert charge["amount"] == 2505
    with hub.store.unit_of_work(readonly=True) as uow:
        merchant = next(m for p in uow.providers.list() for m in uow.merchants.list(p.id))
        tx = uow.transactions.get(merchant.id, body["transactionId"])
    assert tx is not None
    assert (tx.status, tx.gateway_reference) == (TxStatus.AUTHORIZED, charge["id"])
    assert fake.posts("/v1/charges")[0].headers["Idempotency-Key"] == clover_key(tx.gateway_key)

    declined = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "5.00", "currency": "USD"},
            "gatewayName": "clover",
            "paymentMethodToken": fake.tokenize("4000000000009995"),
        },
        headers=headers,
    )
    assert declined.status_code == 402, declined.text
    assert declined.json()["declineCode"] == "insufficient_funds"
