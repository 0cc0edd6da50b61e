"""Charges over HTTP: what the response says, what the ledger holds, what the gateway saw."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.system import FixedClock
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayResult,
    GatewayStatus,
    GatewayTimeout,
    TxStatus,
)
from payhub.services.merchants import CredentialInput
from payhub.services.payments import ChargeInput
from tests.conftest import Account
from tests.payments.conftest import CountingGateway, charge_body

Client = TestClient[Litestar]


def ledger(hub: PayHub, tx_id: str) -> tuple[Any, list[Any]]:
    with hub.store.unit_of_work() as uow:
        for provider in uow.providers.list():
            for merchant in uow.merchants.list(provider.id):
                tx = uow.transactions.get(merchant.id, tx_id)
                if tx is not None:
                    return tx, uow.transactions.events(tx.id)
    raise AssertionError(f"{tx_id} is not stored")


def test_a_sale_is_captured_and_recorded(
    client: Client, shop: dict[str, str], hub: PayHub, gateway: CountingGateway
) -> None:
    response = client.post("/api/payments/charge", json=charge_body("25.05"), headers=shop)

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "Captured"
    assert body["amount"] == {"value": 25.05, "currency": "USD"}
    assert body["capturedAmount"]["value"] == 25.05
    assert body["settled"] is True
    assert body["gatewayReference"].startswith("simtx_")
    tx, events = ledger(hub, body["transactionId"])
    assert tx.status is TxStatus.CAPTURED
    assert tx.amount.amount == Decimal("25.05")
    assert [(e.kind.value, e.outcome.value) for e in events] == [("charge", "succeeded")]
    assert gateway.calls["charge"] == 1


def test_money_comes_back_exactly_as_a_json_number(client: Client, shop: dict[str, str]) -> None:
    response = client.post("/api/payments/charge", json=charge_body("0.10"), headers=shop)
    assert b'"value":0.10' in response.content


def test_authorize_then_partial_capture_then_refunds(
    client: Client, shop: dict[str, str], hub: PayHub, gateway: CountingGateway
) -> None:
    auth = client.post(
        "/api/payments/charge", json=charge_body("100.00", capture=False), headers=shop
    ).json()
    assert auth["status"] == "Authorized"
    base = f"/api/payments/simulator/transactions/{auth['transactionId']}"

    captured = client.post(
        f"{base}/capture", json={"amount": {"value": 60, "currency": "USD"}}, headers=shop
    )
    assert captured.status_code == 200, captured.text
    assert captured.json()["status"] == "Captured"
    assert captured.json()["capturedAmount"]["value"] == 60

    first = client.post(
        f"{base}/refund", json={"amount": {"value": 10.5, "currency": "USD"}}, headers=shop
    )
    assert first.json()["status"] == "PartiallyRefunded"
    rest = client.post(f"{base}/refund", headers=shop)
    assert rest.json()["status"] == "Refunded"
    assert rest.json()["refundedAmount"]["value"] == 60

    tx, events = ledger(hub, auth["transactionId"])
    assert tx.refunded.amount == Decimal("60.00")
    assert [e.kind.value for e in events] == ["authorize", "capture", "refund", "refund"]
    assert events[3].amount is not None
    assert events[3].amount.amount == Decimal("49.50")
    assert gateway.calls["refund"] == 2


@pytest.mark.parametrize(
    ("setup", "move", "body", "detail"),
    [
        ("sale", "refund", {"amount": {"value": 30, "currency": "USD"}}, "cannot refund"),
        ("sale", "void", None, "refund it instead"),
        ("sale", "capture", None, "only an Authorized"),
        ("auth", "capture", {"amount": {"value": 26, "currency": "USD"}}, "only 25.00 USD"),
        ("auth", "refund", None, "only a captured"),
        ("voided", "capture", None, "only an Authorized"),
        ("voided", "void", None, "only an Authorized"),
        ("voided", "refund", None, "only a captured"),
    ],
)
def test_illegal_moves_are_409_and_never_reach_the_gateway(
    client: Client,
    shop: dict[str, str],
    gateway: CountingGateway,
    hub: PayHub,
    setup: str,
    move: str,
    body: dict[str, Any] | None,
    detail: str,
) -> None:
    tx = client.post(
        "/api/payments/charge", json=charge_body(capture=setup == "sale"), headers=shop
    ).json()
    base = f"/api/payments/simulator/transactions/{tx['transactionId']}"
    if setup == "voided":
        assert client.post(f"{base}/void", headers=shop).status_code == 200
    before = dict(gateway.calls)
    stored_before, _ = ledger(hub, tx["transactionId"])

    response = client.post(f"{base}/{move}", json=body, headers=shop)

    assert response.status_code == 409, response.text
    assert detail in response.json()["detail"]
    assert dict(gateway.calls) == before
    stored_after, _ = ledger(hub, tx["transactionId"])
    assert stored_after == stored_before


def test_a_decline_is_402_and_recorded_as_failed(
    client: Client, shop: dict[str, str], hub: PayHub
) -> None:
    response = client.post(
        "/api/payments/charge", json=charge_body(token="sim_card_insufficient"), headers=shop
    )
    assert response.status_code == 402
    problem = response.json()
    assert response.headers["content-type"] == "application/problem+json"
    assert problem["type"] == "/problems/payment-declined"
    assert problem["declineCode"] == "insufficient_funds"
    assert problem["gatewayMessage"] == "Your card has insufficient funds."
    tx, events = ledger(hub, problem["transactionId"])
    assert tx.status is TxStatus.FAILED
    assert tx.decline_code == "insufficient_funds"
    assert events[0].outcome.value == "declined"


@pytest.mark.parametrize(
    ("token", "status", "kind"),
    [
        ("sim_card_decline", 402, "payment-declined"),
        ("sim_card_expired", 402, "payment-declined"),
        ("sim_card_cvc", 402, "payment-declined"),
        ("sim_card_fraud", 402, "payment-declined"),
        ("sim_card_processing", 402, "payment-declined"),
        ("sim_card_unavailable", 502, "gateway-unavailable"),
        ("tok_nobody_knows", 402, "payment-method-invalid"),
    ],
)
def test_gateway_failures_map_to_documented_statuses(
    client: Client, shop: dict[str, str], token: str, status: int, kind: str
) -> None:
    response = client.post("/api/payments/charge", json=charge_body(token=token), headers=shop)
    assert response.status_code == status
    assert response.json()["type"] == f"/problems/{kind}"


def test_a_timeout_is_504_unknown_and_a_retry_with_the_same_key_settles_it(
    client: Client, shop: dict[str, str], hub: PayHub, gateway: CountingGateway
) -> None:
    headers = {**shop, "Idempotency-Key": "order-77"}
    lost = client.post(
        "/api/payments/charge", json=charge_body(token="sim_card_timeout"), headers=headers
    )
    assert lost.status_code == 504
    tx_id = lost.json()["transactionId"]
    assert ledger(hub, tx_id)[0].status is TxStatus.UNKNOWN

    retry = client.post(
        "/api/payments/charge", json=charge_body(token="sim_card_timeout"), headers=headers
    )

    assert retry.status_code == 201, retry.text
    assert retry.json()["transactionId"] == tx_id
    tx, events = ledger(hub, tx_id)
    assert tx.status is TxStatus.CAPTURED
    assert [e.outcome.value for e in events] == ["unknown", "succeeded"]
    assert gateway.calls["charge"] == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (charge_body("10.001"), "amount.value"),
        (charge_body("0"), "amount.value"),
        (charge_body("-5"), "amount.value"),
        ({**charge_body(), "amount": {"value": 5, "currency": "XYZ"}}, "currency"),
        ({**charge_body(), "gatewayName": "nope"}, "gatewayName"),
        ({**charge_body(), "paymentMethodToken": " "}, "paymentMethodToken"),
        ({**charge_body(), "type": "BankAccount", "capture": False}, "capture"),
    ],
)
def test_bad_charges_are_400_and_store_nothing(
    client: Client,
    shop: dict[str, str],
    hub: PayHub,
    body: dict[str, Any],
    field: str,
    gateway: CountingGateway,
) -> None:
    response = client.post("/api/payments/charge", json=body, headers=shop)
    assert response.status_code == 400, response.text
    assert field in [e["field"] for e in response.json()["errors"]]
    assert gateway.calls["charge"] == 0
    merchant = hub.operators.list_merchants()[0]
    with hub.store.unit_of_work() as uow:
        assert uow.transactions.list(merchant.id) == []


def test_jpy_has_no_minor_unit(client: Client, shop: dict[str, str]) -> None:
    ok = client.post(
        "/api/payments/charge",
        json={**charge_body(), "amount": {"value": 500, "currency": "JPY"}},
        headers=shop,
    )
    assert ok.status_code == 201
    assert ok.json()["amount"] == {"value": 500, "currency": "JPY"}
    bad = client.post(
        "/api/payments/charge",
        json={**charge_body(), "amount": {"value": 500.5, "currency": "JPY"}},
        headers=shop,
    )
    assert bad.status_code == 400


def test_credentials_must_be_set_and_enabled(
    client: Client, shop: dict[str, str], sandbox_provider: Account
) -> None:
    client.put(
        "/api/merchant-accounts/shop-1/credentials/simulator",
        json={"apiSecret": "s", "environment": "Sandbox", "enabled": False},
        headers=sandbox_provider.headers,
    )
    disabled = client.post("/api/payments/charge", json=charge_body(), headers=shop)
    assert disabled.status_code == 400
    assert "disabled" in disabled.json()["detail"]
    stripe = client.post(
        "/api/payments/charge", json={**charge_body(), "gatewayName": "stripe"}, headers=shop
    )
    assert stripe.status_code == 400
    assert "not set" in stripe.json()["detail"]


def test_the_merchant_header_is_required_and_scoped(
    client: Client,
    shop: dict[str, str],
    sandbox_provider: Account,
    other_provider: Account,
    merchant_key: Any,
    make_merchant: Any,
) -> None:
    missing = client.post(
        "/api/payments/charge", json=charge_body(), headers=sandbox_provider.headers
    )
    assert missing.status_code == 400
    unknown = client.post(
        "/api/payments/charge",
        json=charge_body(),
        headers={**sandbox_provider.headers, "X-Merchant-Reference": "ghost"},
    )
    assert unknown.status_code == 404
    foreign = client.post(
        "/api/payments/charge",
        json=charge_body(),
        headers={**other_provider.headers, "X-Merchant-Reference": "shop-1"},
    )
    assert foreign.status_code == 404
    make_merchant(sandbox_provider, "shop-2")
    key = merchant_key(sandbox_provider, "shop-2")
    other = client.post(
        "/api/payments/charge",
        json=charge_body(),
        headers={"X-Api-Key": key, "X-Merchant-Reference": "shop-1"},
    )
    assert other.status_code == 403
    own_key = merchant_key(sandbox_provider, "shop-1")
    own = client.post(
        "/api/payments/charge",
        json=charge_body(),
        headers={"X-Api-Key": own_key, "X-Merchant-Reference": "shop-1"},
    )
    assert own.status_code == 201


def test_follow_ups_need_the_transactions_own_gateway_and_merchant(
    client: Client,
    shop: dict[str, str],
    sandbox_provider: Account,
    make_merchant: Any,
) -> None:
    tx = client.post("/api/payments/charge", json=charge_body(capture=False), headers=shop).json()
    wrong_gateway = client.post(
        f"/api/payments/stripe/transactions/{tx['transactionId']}/void", headers=shop
    )
    assert wrong_gateway.status_code in (400, 404)
    make_merchant(sandbox_provider, "shop-2")
    other_shop = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-2"}
    client.put(
        "/api/merchant-accounts/shop-2/credentials/simulator",
        json={"apiSecret": "s", "environment": "Sandbox"},
        headers=sandbox_provider.headers,
    )
    elsewhere = client.post(
        f"/api/payments/simulator/transactions/{tx['transactionId']}/void", headers=other_shop
    )
    assert elsewhere.status_code == 404


def test_ach_is_submitted_not_settled_and_a_return_is_recorded(
    client: Client, shop: dict[str, str], hub: PayHub
) -> None:
    body = client.post(
        "/api/payments/charge",
        json=charge_body(token="sim_bank_returned", type="BankAccount"),
        headers=shop,
    ).json()
    assert body["status"] == "Submitted"
    assert body["settled"] is False
    refreshed = client.get(
        f"/api/payments/simulator/transactions/{body['transactionId']}?refresh=true", headers=shop
    ).json()
    assert refreshed["status"] == "Submitted"
    assert [e["outcome"] for e in refreshed["events"]] == ["succeeded", "returned"]


@pytest.mark.parametrize(
    ("gateway_name", "detail"),
    [("paypal", "does not take bank-account"), ("braintree", "only saved bank accounts")],
)
def test_ach_rules_follow_the_gateway_catalog(
    client: Client, shop: dict[str, str], gateway_name: str, detail: str
) -> None:
    response = client.post(
        "/api/payments/charge",
        json={**charge_body(token="btok"), "gatewayName": gateway_name, "type": "BankAccount"},
        headers=shop,
    )
    assert response.status_code == 400
    assert detail in response.json()["detail"]


def test_transactions_list_newest_first_with_a_cursor(
    client: Client, shop: dict[str, str], clock: Any
) -> None:
    from datetime import timedelta

    ids = []
    for _ in range(3):
        ids.append(
            client.post("/api/payments/charge", json=charge_body(), headers=shop).json()[
                "transactionId"
            ]
        )
        clock.advance(timedelta(seconds=1))
    first = client.get("/api/payments/transactions?limit=2", headers=shop).json()
    assert [t["transactionId"] for t in first["data"]] == ids[::-1][:2]
    assert first["hasMore"] is True
    rest = client.get(
        f"/api/payments/transactions?limit=2&startingAfter={first['nextCursor']}", headers=shop
    ).json()
    assert [t["transactionId"] for t in rest["data"]] == [ids[0]]
    assert rest["hasMore"] is False


class SimulatorThatFindsLostCharges(SimulatorGateway):
    """The simulator plus a ``lookup`` that finds the charge whose answer was lost."""

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        return GatewayResult("found_by_lookup", GatewayStatus.CAPTURED, request.amount)


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_retried_unknown_charge_is_looked_up_before_anything_is_resent(
    store_url: str, key_file: Any, clock: Any
) -> None:
    gateway = CountingGateway(SimulatorThatFindsLostCharges())
    hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways={"simulator": gateway})
    try:
        _, issued = hub.operators.create_provider("P")
        tenant = hub.provider(hub.authenticate(issued.secret))
        tenant.merchants.create("m", "Shop")
        shop = tenant.merchant("m")
        shop.credentials.put("simulator", CredentialInput("s", "Sandbox", True))
        given = ChargeInput(Decimal("9.99"), "USD", "simulator", token="sim_card_timeout")
        with pytest.raises(GatewayTimeout):
            shop.payments.charge(given, idempotency_key="k1")

        settled = shop.payments.charge(given, idempotency_key="k1")

        assert settled.transaction.status is TxStatus.CAPTURED
        assert settled.transaction.gateway_reference == "found_by_lookup"
        assert gateway.calls["charge"] == 1
        assert gateway.calls["lookup"] == 1
    finally:
        hub.close()


def test_a_key_left_in_flight_by_a_dead_process_is_taken_over_once_its_lease_lapses(
    client: Client,
    shop: dict[str, str],
    hub: PayHub,
    gateway: CountingGateway,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The process died mid-charge: it neither stored an answer nor released the key."""
    from payhub.adapters.storage.sql import SqlIdempotency
    from payhub.services.idempotency import LEASE

    headers = {**shop, "Idempotency-Key": "order-dead"}
    real_charge = gateway.inner.charge

    def die(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the process was killed here")

    monkeypatch.setattr(gateway.inner, "charge", die)
    monkeypatch.setattr(SqlIdempotency, "release", lambda self, scope, key: None)
    assert (
        client.post("/api/payments/charge", json=charge_body(), headers=headers).status_code == 500
    )
    monkeypatch.undo()
    assert gateway.inner.charge == real_charge

    early = client.post("/api/payments/charge", json=charge_body(), headers=headers)
    assert early.status_code == 409  # it might still be running somewhere
    other = client.post("/api/payments/charge", json=charge_body("11.00"), headers=headers)
    assert other.status_code == 422  # a different request never takes the key over

    clock.advance(LEASE - timedelta(seconds=1))
    still = client.post("/api/payments/charge", json=charge_body(), headers=headers)
    assert still.status_code == 409  # the lease has not lapsed yet
    clock.advance(timedelta(seconds=2))
    retry = client.post("/api/payments/charge", json=charge_body(), headers=headers)

    assert retry.status_code == 201, retry.text
    tx, _ = ledger(hub, retry.json()["transactionId"])
    assert tx.status is TxStatus.CAPTURED
    replay = client.post("/api/payments/charge", json=charge_body(), headers=headers)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json()["transactionId"] == tx.id
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get(tx.merchant_id)
        assert merchant is not None
        assert len(uow.transactions.list(merchant.id)) == 1  # one charge, never two
